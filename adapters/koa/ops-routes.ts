import { timingSafeEqual, createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Dossier } from '../../lib/index.js';
import { addDocsRoutes } from './docs.js';
import { answerApiError } from './error-middleware.js';
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
    router.get('/metrics', async (ctx) => {
      if (!isAdmin(ctx, token)) {
        const code = /^Bearer\s+\S/i.test(ctx.get('Authorization')) ? 'invalid_key' : 'missing_key';
        answerApiError(ctx, 401, code, 'Send the admin token as "Authorization: Bearer <DOSSIER_ADMIN_TOKEN>".');
        return;
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    });
  }
  return router;
}

/** True when the request carries the admin token as its bearer (compared in constant time). */
function isAdmin(ctx: Context, token: string): boolean {
  const sent = /^Bearer\s+(.+)$/i.exec(ctx.get('Authorization'))?.[1]?.trim();
  if (sent === undefined) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(sent), digest(token));
}
