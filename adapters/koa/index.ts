export { createDossierRouter, createKoaApp } from './app.js';
export { authenticate, bearerSecret } from './auth.js';
export { answerClientErrorsWithJson } from './client-errors.js';
export { HTTP_ERRORS, type HttpError } from './error-map.js';
export { errorMiddleware } from './error-middleware.js';
