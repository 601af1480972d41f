import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Dossier } from '../../lib/index.js';
import { addAdminRoutes } from './admin/index.js';
import { addBatchRoutes } from './batch-routes.js';
import { addDocumentRoutes, documentFastPath } from './document-routes.js';
import { errorMiddleware } from './error-middleware.js';
import { addLookupRoutes, lookupHandlers } from './lookup-routes.js';
import { createMetrics } from './metrics.js';
import { createOpsRouter } from './ops-routes.js';
import { requestMiddleware } from './request-middleware.js';
import { addWatchRoutes } from './watch-routes.js';

/**
 * A router with every route of both interfaces and the administration panel (on only with
 * `adminToken`), for mounting in an existing Koa app. Mount it after {@link errorMiddleware} (or your
 * own) so that failures get Dossier's JSON error bodies.
 */
export function createDossierRouter(dossier: Dossier): Router {
  const router = new Router();
  addLookupRoutes(router, dossier);
  addBatchRoutes(router, dossier);
  addWatchRoutes(router, dossier);
  addDocumentRoutes(router, dossier);
  addAdminRoutes(router, dossier);
  return router;
}

/**
 * A Koa app serving Dossier: request ids, one log line per request and metrics (with an admin token),
 * JSON errors (404 for unknown paths, 500 without a stack), the lookups' and documents' fast paths,
 * then the routes and the server's own (`/`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`, `/docs`).
 */
export function createKoaApp(dossier: Dossier): Koa {
  const app = new Koa();
  const router = createDossierRouter(dossier);
  const metrics = dossier.options.adminToken === undefined ? undefined : createMetrics();
  if (metrics !== undefined) dossier.observe(metrics.observer);
  const ops = createOpsRouter(dossier, metrics);
  app.use(requestMiddleware(dossier.options.logger, metrics));
  app.use(errorMiddleware(dossier.options.logger));
  app.use(lookupFastPath(dossier));
  app.use(documentFastPath(dossier));
  app.use(ops.routes());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/**
 * `GET /api/dns|whois|ip|ssl` straight to the handler the router would call: the hottest path skips the
 * router's dispatch, measured at about a fifth of a cached lookup's cost. Anything else, including
 * other spellings and methods of these paths, goes on to the router.
 */
function lookupFastPath(dossier: Dossier): Middleware {
  const handlers = lookupHandlers(dossier);
  return (ctx, next) => {
    const handler = ctx.method === 'GET' ? handlers.get(ctx.path) : undefined;
    return handler ? handler(ctx) : next();
  };
}
