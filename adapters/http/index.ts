// Dossier's HTTP contract, framework-free: what the framework adapters (adapters/koa, express, fastify,
// fetch) use, and what their package entries show of it. An adapter imports this file alone.

export { bearerToken } from './auth.js';
export { answerClientErrorsWithJson, answerClientError } from './client-errors.js';
export { answerError, answerFailure, HTTP_ERRORS, type HttpError } from './errors.js';
export { createHttpHandler, mountPrefix, type HttpHandler, type HttpOptions, type HttpPart } from './handler.js';
export { createJsonLogger, type JsonLoggerOptions } from './logging.js';
export { createMetrics, type DossierMetrics } from './metrics.js';
export { MCP_SDK } from './mcp/sdk.js';
export { serveMcpStdio } from './mcp/stdio.js';
export { nodeRequest, writeNodeResponse, writeNodeStream } from './node.js';
export { buildOpenApiDocument, openApiDocument, routePatternOf, type OpenApiDocument } from './openapi.js';
export { Reply, type HttpResponse } from './reply.js';
export { requestIdFrom } from './request-context.js';
export type { HttpRequest } from './request.js';
export { ROUTES } from './routes.js';
export { defineRoute, type ResponseSpec, type RouteSpec } from './schemas/define.js';
export { validateAgainst, type Validation } from './schemas/validate.js';
export { applyKeepAlive, serverOptionsFromEnv, type ServerOptions } from './server-options.js';
