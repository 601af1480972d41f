import { performance } from 'node:perf_hooks';
import type { Middleware } from 'koa';
import type { Logger } from '../../lib/index.js';
import { SILENT_LOGGER } from '../../lib/internal.js';
import type { DossierMetrics } from './metrics.js';
import { requestContext, requestIdFrom, type RequestContext } from './request-context.js';
import { routePatternOf } from './schemas/openapi.js';

/**
 * The outermost middleware: gives the request its id (the client's `X-Request-Id` when valid, else a
 * new one) and answers with it, runs the request inside its {@link requestContext} (so that every log
 * line it causes carries the id), then writes one log line and counts the answer in `metrics`.
 * The line holds `method`, `route` (the declared pattern, `null` for an unknown path), `status`, `ms`,
 * `request_id` and `key_id`: never the raw query, a key or the `Authorization` header.
 */
export function requestMiddleware(logger: Logger, metrics: DossierMetrics | undefined): Middleware {
  const logs = logger !== SILENT_LOGGER;
  return async function observeRequest(ctx, next) {
    const start = performance.now();
    const context: RequestContext = { request_id: requestIdFrom(ctx.get('X-Request-Id') || undefined) };
    ctx.set('X-Request-Id', context.request_id);
    if (!logs && metrics === undefined) return next();
    try {
      // On Node 20 an AsyncLocalStorage slows every promise once used: only when lines are written.
      await (logs ? requestContext.run(context, next) : next());
    } finally {
      const seconds = (performance.now() - start) / 1000;
      const route = routePatternOf(ctx.path);
      metrics?.request(ctx.method, route ?? 'unmatched', ctx.status, seconds);
      if (logs) {
        logger.info('request', {
          method: ctx.method,
          route,
          status: ctx.status,
          ms: Math.round(seconds * 1e6) / 1000,
          request_id: context.request_id,
          key_id: context.key_id ?? null,
        });
      }
    }
  };
}
