import Router from '@koa/router';
import type { Dossier } from '../../lib/index.js';
import { AdminAccess } from './admin/access.js';
import { refuse } from './admin/api-routes.js';
import { addDocsRoutes } from './docs.js';
import type { DossierMetrics } from './metrics.js';
import type { Readiness, ServiceIndex } from './schemas/shapes.js';
import { openApiDocument } from './schemas/openapi.js';
import { dossierVersion } from '../version.js';

/** `/readyz` answers within 1 s (CONTRACT.md §7): each probe gets this much of it. */
export const READY_PROBE_MS = 600;

/**
 * The server's own routes (CONTRACT.md §7): `/`, `/healthz`, `/readyz`, `/metrics` (only with an admin
 * token), `/openapi.json` and `/docs`. They need no key and count against nothing.
 */
export function createOpsRouter(dossier: Dossier, metrics: DossierMetrics | undefined): Router {
  const router = new Router();
  router.get('/', (ctx) => {
    // Negotiated, not a substring match: `text/html;q=0` refuses HTML, and a client that prefers JSON gets JSON.
    if (ctx.accepts('application/json', 'text/html') === 'text/html') {
      ctx.redirect('/docs');
      return;
    }
    ctx.body = { name: 'dossier', version: dossierVersion(), docs: '/docs', openapi: '/openapi.json' } satisfies ServiceIndex;
  });
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const { store, cache } = await dossier.probe(READY_PROBE_MS);
    ctx.set('Cache-Control', 'no-store');
    const body: Readiness =
      store && cache
        ? { status: 'ready', store: 'up', cache: 'up' }
        : { status: 'unavailable', store: store ? 'up' : 'down', cache: cache ? 'up' : 'down' };
    ctx.status = store && cache ? 200 : 503;
    ctx.body = body;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = openApiDocument().text;
  });
  addDocsRoutes(router);
  const token = dossier.options.adminToken;
  if (token !== undefined && metrics !== undefined) {
    // The admin API's check of a bearer token: a wrong one here counts toward the same lock-out.
    const access = new AdminAccess(token, dossier.adminSessions, dossier.options.clock);
    router.get('/metrics', async (ctx) => {
      const check = await access.checkBearer(ctx);
      if (!check.ok) {
        refuse(ctx, check);
        return;
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    });
  }
  return router;
}
