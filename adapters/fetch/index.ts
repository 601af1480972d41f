export { answerRequestError, createFetchHandler, type FetchClient, type FetchHandler, type FetchOptions } from './handler.js';
