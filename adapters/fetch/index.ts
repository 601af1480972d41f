export { answerRequestError, createFetchHandler, type FetchClient, type FetchHandler, type FetchOptions } from './handler.js';
export { createRouteHandlers, type RouteHandler, type RouteHandlers, type RouteHandlersOptions } from './route-handlers.js';
