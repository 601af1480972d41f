import type { Context, Middleware } from 'koa';
import type { Dossier, Logger } from '../../lib/index.js';
import {
  createHttpHandler,
  mountPrefix,
  nodeRequest,
  writeNodeStream,
  type HttpOptions,
  type HttpPart,
  type HttpResponse,
} from '../http/index.js';

/** How Dossier is mounted in a Koa app. */
export interface KoaOptions extends HttpOptions {
  /**
   * Where Dossier's paths are, in the app (`/dossier`): it answers under it and passes every other
   * path on. @default '' (the root: every path that reaches it is Dossier's)
   */
  prefix?: string;
  /** @inheritDoc @default the Koa app's `proxy` setting */
  trustProxy?: boolean;
}

/** Dossier's routes for a Koa app, used as a router of @koa/router is. */
export interface DossierRouter {
  /** The middleware that answers Dossier's paths (every path at the root, those under `prefix` else) and passes the others on. */
  routes(): Middleware;
  /** Kept for code written for a @koa/router router: `routes()` already answers 405 and 501, so this only passes on. */
  allowedMethods(): Middleware;
}

/**
 * A router with all of Dossier's HTTP contract, for mounting in an existing Koa app:
 * `app.use(createDossierRouter(dossier).routes())`. Both interfaces, batch, watches, the administration
 * panel and its API (with `adminToken`), /docs, /openapi.json, /metrics, /healthz, /readyz, `/`, the
 * `X-Request-Id`, the log line of each request, and JSON errors for unknown paths and methods. Mount it
 * after your own routes: at the root, every path that reaches it is answered.
 */
export function createDossierRouter(dossier: Dossier, options: KoaOptions = {}): DossierRouter {
  return koaRouter(dossier, options, 'all');
}

/**
 * A router with only the administration panel and its API (`/admin` and below), for hosts that mount
 * the panel apart from the interfaces, behind their own access rules or under their own prefix.
 */
export function createAdminRouter(dossier: Dossier, options: KoaOptions = {}): DossierRouter {
  return koaRouter(dossier, options, 'panel');
}

function koaRouter(dossier: Dossier, options: KoaOptions, part: HttpPart): DossierRouter {
  const http = createHttpHandler(dossier, options, part);
  const prefix = mountPrefix(options.prefix);
  const middleware: Middleware = async (ctx, next) => {
    const request = nodeRequest(ctx.req, ctx.res, ctx.originalUrl, prefix, options.trustProxy ?? ctx.app.proxy);
    if (!http.owns(request)) return next();
    await respond(ctx, await http.handle(request), dossier.options.logger);
  };
  const passOn: Middleware = (_ctx, next) => next();
  return { routes: () => middleware, allowedMethods: () => passOn };
}

/** The codes of a write to a connection whose client went away (`write EPIPE`, a reset, a destroyed stream). */
const CLIENT_GONE = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/** Writes the answer through Koa (so that the app's own middleware sees its status and body), a stream straight to Node. */
async function respond(ctx: Context, response: HttpResponse, logger: Logger): Promise<void> {
  ctx.status = response.status;
  for (const [name, value] of response.headers()) ctx.res.setHeader(name, value);
  if (response.stream !== null) {
    ctx.respond = false;
    // A client that leaves a stream is no error of the app's: Koa would print its stack on standard
    // error (app.onerror), where every line is a JSON log line. Any other error is Koa's as ever.
    const onerror = ctx.onerror.bind(ctx);
    ctx.onerror = (error) => {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === 'string' && CLIENT_GONE.has(code)) logger.info('client left the stream', { code });
      else onerror(error);
    };
    await writeNodeStream(ctx.res, response.stream);
    return;
  }
  if (response.body !== null) ctx.body = typeof response.body === 'string' ? response.body : Buffer.from(response.body);
  // No body, as a 202 of /mcp is: Koa would write the status's name for one.
  else if (response.status !== 204 && response.status !== 304) {
    ctx.respond = false;
    ctx.res.end();
  }
}
