import { performance } from 'node:perf_hooks';
import type { Dossier, Logger } from '../../lib/index.js';
import { requireScope, SILENT_LOGGER } from '../../lib/internal.js';
import { AdminAccess, refusal } from './admin/access.js';
import { bearerToken } from './auth.js';
import { findDocsAssets } from './docs.js';
import { answerError, answerFailure, RequestError } from './errors.js';
import { createMetrics, type DossierMetrics } from './metrics.js';
import { openApiText } from './openapi.js';
import { Reply, type HttpResponse } from './reply.js';
import { clientFacts, preferredType, type ClientFacts, type HttpRequest } from './request.js';
import { requestIdFrom, requestLogger, type RequestContext } from './request-context.js';
import { panelOf, type Call, type Mount, type Route } from './route.js';
import { Router } from './router.js';
import { ROUTES } from './routes.js';

/** How Dossier is mounted in an application. */
export interface HttpOptions {
  /**
   * Believe the `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-For` of a reverse proxy in
   * front: the admin panel then sees the scheme, host and address the browser used (its `Origin`
   * check, `Secure` cookie and per-address sign-in lock-out), and document links name that host. Only
   * behind a proxy that sets them: anyone could send them otherwise. The client's address is the last
   * of `X-Forwarded-For`, the one that proxy added. @default false
   */
  trustProxy?: boolean;
}

/** Dossier's HTTP contract, ready to answer requests: what every framework adapter calls. */
export interface HttpHandler {
  /** Whether `request` is Dossier's to answer: its path is the mount's prefix or under it. */
  owns(request: HttpRequest): boolean;
  /**
   * Answers a request: request id, routing, authentication and scope, the handler, the error map;
   * one log line and the metrics once the answer is complete (for a stream, when it ends).
   * Never rejects: what goes wrong is answered.
   */
  handle(request: HttpRequest): Promise<HttpResponse>;
}

/** The panel's paths: `/admin` and below. */
const PANEL_PATH = /^\/admin(?:\/|$)/;

/** Which part of the contract a mount serves: all of it, or the administration panel and its API alone. */
export type HttpPart = 'all' | 'panel';

/**
 * Mounts the contract for `dossier`: the route table, the admin panel's access and the metrics (with
 * an admin token; their observer is attached to `dossier`). With `part: 'panel'`, only the panel and
 * its API, which then own `/admin` and below alone.
 * @throws DossierError `ERR_CONFIG_INVALID` when a peer dependency it needs is not installed:
 *   swagger-ui-dist, and prom-client with an admin token.
 */
export function createHttpHandler(dossier: Dossier, options: HttpOptions = {}, part: HttpPart = 'all'): HttpHandler {
  const token = dossier.options.adminToken;
  findDocsAssets();
  const metrics = token === undefined ? undefined : createMetrics();
  if (metrics !== undefined) dossier.observe(metrics.observer);
  const mount: Mount = {
    dossier,
    access: token === undefined ? undefined : new AdminAccess(token, dossier.adminSessions, dossier.options.clock),
    metrics,
    trustProxy: options.trustProxy ?? false,
    openApiText,
    answer: (request, context) => dispatcher.answer(request, context),
  };
  const routes = part === 'all' ? ROUTES : ROUTES.filter((route) => PANEL_PATH.test(route.path));
  const router = new Router(routes, (route) => token !== undefined || !route.needsAdminToken);
  const dispatcher = new Dispatcher(mount, router, part === 'all' ? undefined : PANEL_PATH);
  return dispatcher;
}

/** A mount's prefix as the contract compares paths with it: `''` for none or `/`, no trailing slash. */
export function mountPrefix(prefix: string | undefined): string {
  return (prefix ?? '').replace(/\/+$/, '');
}

/** The path of a request target, and its query; a target in absolute form (`http://host/path`) is read for its path. */
function splitTarget(target: string): { path: string; query: string } {
  let rest = target;
  if (!rest.startsWith('/') && rest !== '*') {
    try {
      const url = new URL(rest);
      rest = url.pathname + url.search;
    } catch {
      // Not a URL either: matched as it came, to no route.
    }
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const mark = rest.indexOf('?');
  return mark < 0 ? { path: rest, query: '' } : { path: rest.slice(0, mark), query: rest.slice(mark + 1) };
}

/**
 * `path` relative to the mount's `prefix` (`/` for the prefix itself), compared as sent,
 * case-sensitively; `undefined` when it is not under it.
 */
function localPath(path: string, prefix: string): string | undefined {
  if (prefix === '') return path;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  if (rest === '') return '/';
  return rest.startsWith('/') ? rest : undefined;
}

/**
 * False for a request that HTTP/1.1 gives a server no way to read (RFC 9112 §3.2): a target that is no
 * path (`*`, `GET api`), a backslash in the path, a `Host` that names no host (`a b`). A fetch runtime
 * refuses these before any code runs (on Node through @hono/node-server, `answerRequestError` answers
 * them); the mounts on Node's server are handed them, and refuse them here, alike.
 */
function readable(request: HttpRequest, path: string): boolean {
  if (!path.startsWith('/') || path.includes('\\')) return false;
  const host = request.header('host');
  if (host === undefined) return true;
  try {
    return new URL(`http://${host}/`).hostname === host.replace(/:\d*$/, '').toLowerCase();
  } catch {
    return false;
  }
}

class RouteCall implements Call {
  secret: string | null = null;
  key: Call['key'] = undefined;
  params: Readonly<Record<string, string>> = {};
  private facts: ClientFacts | undefined;
  private log: Logger | undefined;

  constructor(
    readonly mount: Mount,
    readonly request: HttpRequest,
    readonly reply: Reply,
    readonly path: string,
    readonly query: string,
    readonly context: RequestContext,
  ) {}

  get dossier(): Dossier {
    return this.mount.dossier;
  }

  get logger(): Logger {
    const logger = this.mount.dossier.options.logger;
    return logger === SILENT_LOGGER ? logger : (this.log ??= requestLogger(logger, this.context));
  }

  client(): ClientFacts {
    return (this.facts ??= clientFacts(this.request, this.request.trustProxy ?? this.mount.trustProxy));
  }

  accepts(...types: string[]): string | undefined {
    return preferredType(this.request, types);
  }
}

class Dispatcher implements HttpHandler {
  private readonly logger: Logger;
  private readonly logs: boolean;
  private readonly metrics: DossierMetrics | undefined;

  constructor(
    private readonly mount: Mount,
    private readonly router: Router,
    /** The paths the mount owns under its prefix; all of them when undefined. */
    private readonly owned: RegExp | undefined,
  ) {
    this.logger = mount.dossier.options.logger;
    this.logs = this.logger !== SILENT_LOGGER;
    this.metrics = mount.metrics;
  }

  owns(request: HttpRequest): boolean {
    if (request.prefix === '' && this.owned === undefined) return true;
    const local = localPath(splitTarget(request.target).path, request.prefix);
    return local !== undefined && (this.owned === undefined || this.owned.test(local));
  }

  async handle(request: HttpRequest): Promise<HttpResponse> {
    const reply = new Reply();
    const context: RequestContext = { request_id: requestIdFrom(request.header('x-request-id')) };
    reply.header('X-Request-Id', context.request_id);
    const { path, query } = splitTarget(request.target);
    const call = new RouteCall(this.mount, request, reply, path, query, context);
    if (!this.logs && this.metrics === undefined) {
      await this.dispatch(call);
      return reply.finish();
    }
    const start = performance.now();
    const route = await this.dispatch(call);
    const done = (): void => this.observe(request.method, route, reply.status, start, context);
    if (reply.stream === null) done();
    else reply.stream = observed(reply.stream, done);
    return reply.finish();
  }

  /** See {@link Mount.answer}: {@link dispatch} alone. */
  async answer(request: HttpRequest, context: RequestContext): Promise<HttpResponse> {
    const reply = new Reply();
    const { path, query } = splitTarget(request.target);
    await this.dispatch(new RouteCall(this.mount, request, reply, path, query, context));
    return reply.finish();
  }

  /** Routes the call and runs its route; answers what goes wrong. Resolves with the route's label (`null`: none). */
  private async dispatch(call: RouteCall): Promise<string | null> {
    const { request, reply } = call;
    const local = localPath(call.path, request.prefix) ?? call.path;
    const failure = (status: number, code: string, message: string): void =>
      answerFailure(reply, call.path, status, code, message);
    if (!readable(request, call.path)) {
      failure(400, 'bad_request', 'The request could not be read.');
      return null;
    }
    const routing = this.router.route(request.method, local);
    switch (routing.kind) {
      case 'not-found':
        failure(404, 'not_found', `There is no ${request.method} ${call.path}.`);
        return this.router.match(local)?.routes.label ?? null;
      case 'not-implemented':
        reply.header('Allow', routing.allow);
        failure(501, 'not_implemented', `The method ${request.method} is not supported.`);
        return this.router.match(local)?.routes.label ?? null;
      case 'not-allowed': {
        const message = `${request.method} is not allowed on ${call.path}; use ${routing.allow}.`;
        // Koa's router answers OPTIONS itself (a body first, then Allow); the header order follows it.
        if (request.method === 'OPTIONS') failure(405, 'method_not_allowed', message);
        reply.header('Allow', routing.allow);
        if (request.method !== 'OPTIONS') failure(405, 'method_not_allowed', message);
        return this.router.match(local)?.routes.label ?? null;
      }
    }
    const { route, match } = routing;
    // U+0000 is in no id, and a store may take it for an outage (PostgreSQL): such a path names nothing.
    if (Object.values(match.params).some((value) => value.includes('\u0000'))) {
      failure(404, 'not_found', `There is no ${request.method} ${call.path}.`);
      return match.routes.label;
    }
    call.params = match.params;
    try {
      if (route.headers !== undefined) for (const [name, value] of Object.entries(route.headers)) reply.header(name, value);
      if (await this.admitted(call, route)) {
        await route.handle(call);
        if (reply.status === 0) failure(404, 'not_found', `There is no ${request.method} ${call.path}.`);
      }
    } catch (error) {
      answerError(reply, call.path, error, call.logger);
    }
    return match.routes.label;
  }

  /**
   * Checks who calls, as the route declares: a key (and its scope), unless the route meters the key
   * itself; the admin token or the panel's session. Answers the refusal of an admin route itself;
   * a key's refusal is thrown, for the error map.
   */
  private async admitted(call: RouteCall, route: Route): Promise<boolean> {
    // Two Authorization headers (which a fetch runtime joins with a comma), or a list in one: no mount
    // picks one of them, and nothing is counted.
    if (route.auth !== 'none' && call.request.header('authorization')?.includes(',')) {
      throw new RequestError(400, 'invalid_request', 'Send one Authorization header with one credential.');
    }
    if (route.auth === 'key') {
      call.secret = bearerToken(call.request.header('authorization'));
      if (route.metered) return true;
      const key = await call.dossier.metering.authenticate(call.secret);
      // Named in the log line even when its scope then refuses it.
      call.context.key_id = key.id;
      if (route.scope !== undefined) requireScope(key, route.scope);
      call.key = key;
      return true;
    }
    if (route.auth === 'admin') {
      const check = await panelOf(this.mount).access.check(call.request, () => call.client(), route.session === true);
      if (check.ok) return true;
      const [status, code, message] = refusal(check.reason, `${call.request.prefix}/admin`);
      if (check.reason === 'locked') call.reply.header('Retry-After', String(check.retryAfterSeconds));
      answerFailure(call.reply, call.path, status, code, message);
      return false;
    }
    return true;
  }

  private observe(method: string, route: string | null, status: number, start: number, context: RequestContext): void {
    const seconds = (performance.now() - start) / 1000;
    this.metrics?.request(method, route ?? 'unmatched', status, seconds);
    if (this.logs) {
      this.logger.info('request', {
        method,
        route,
        status,
        ms: Math.round(seconds * 1e6) / 1000,
        request_id: context.request_id,
        key_id: context.key_id ?? null,
        ...(context.mcp === undefined ? {} : { mcp_method: context.mcp.method, tool: context.mcp.tool ?? null }),
      });
    }
  }
}

/**
 * A streamed body that calls `done` once it has ended, however it ended: the request lasts until then,
 * for its log line and metrics.
 */
function observed(stream: AsyncIterable<string>, done: () => void): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<string> {
      const inner = stream[Symbol.asyncIterator]();
      let finished = false;
      const end = <T>(result: IteratorResult<T>): IteratorResult<T> => {
        if (result.done && !finished) {
          finished = true;
          done();
        }
        return result;
      };
      return {
        next: () =>
          inner.next().then(end, (error: unknown) => {
            end({ done: true, value: undefined });
            throw error;
          }),
        return: async () => end((await inner.return?.()) ?? { done: true, value: undefined }),
      };
    },
  };
}
