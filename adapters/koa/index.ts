export { createKoaApp } from './app.js';
export { authenticate, bearerSecret } from './auth.js';
export { errorMiddleware } from './error-middleware.js';
export { createAdminRouter, createDossierRouter, type DossierRouter, type KoaOptions } from './router.js';
export {
  answerClientErrorsWithJson,
  buildOpenApiDocument,
  createJsonLogger,
  createMetrics,
  defineRoute,
  HTTP_ERRORS,
  openApiDocument,
  ROUTES,
  routePatternOf,
  applyKeepAlive,
  serverOptionsFromEnv,
  validateAgainst,
  type DossierMetrics,
  type HttpError,
  type JsonLoggerOptions,
  type OpenApiDocument,
  type ResponseSpec,
  type RouteSpec,
  type ServerOptions,
  type Validation,
} from '../http/index.js';
