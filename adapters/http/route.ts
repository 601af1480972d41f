import type { ApiKey, Dossier, Logger } from '../../lib/index.js';
import type { AdminAccess } from './admin/access.js';
import type { DossierMetrics } from './metrics.js';
import type { HttpResponse, Reply } from './reply.js';
import type { ClientFacts, HttpRequest } from './request.js';
import type { RequestContext } from './request-context.js';
import type { TObject } from '@sinclair/typebox';
import type { ResponseSpec, RouteSpec } from './schemas/define.js';

/** What every route of one mount shares: the Dossier it serves, and the parts made for it. */
export interface Mount {
  readonly dossier: Dossier;
  /** Who may use the panel, its API and /metrics; `undefined` without an admin token (they are off). */
  readonly access: AdminAccess | undefined;
  /** The metrics /metrics shows; `undefined` without an admin token. */
  readonly metrics: DossierMetrics | undefined;
  /** Whether the `X-Forwarded-*` of a reverse proxy in front are believed. */
  readonly trustProxy: boolean;
  /** The OpenAPI document of the routes, as JSON text, as served under `prefix` (its `servers`). */
  openApiText(prefix: string): string;
  /**
   * Answers `request` as the route table does (routing, authentication and scope, the handler, the error
   * map), without a log line or metrics of its own: a request made on behalf of another one (an MCP tool
   * call, docs/contract.md §13), whose `context` it shares and whose line tells of it. Never rejects.
   */
  answer(request: HttpRequest, context: RequestContext): Promise<HttpResponse>;
}

/** One request to one route: what its handler reads, and the answer it writes. */
export interface Call {
  readonly mount: Mount;
  readonly dossier: Dossier;
  readonly request: HttpRequest;
  readonly reply: Reply;
  /** The path as requested, the mount's prefix included: what messages and links name. */
  readonly path: string;
  /** The query string, without `?` (`''` for none). */
  readonly query: string;
  /** The path's parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The token of `Authorization: Bearer`: `null` without such a header, `''` when it names none. */
  readonly secret: string | null;
  /** The key that authenticated, on a route of `auth: 'key'` that is not metered. */
  readonly key: ApiKey | undefined;
  /** What the request's log lines carry: its id, and the key's id once one authenticated (set it then). */
  readonly context: RequestContext;
  /** The logger for the lines the request causes (hand it to the core's calls that take one). */
  readonly logger: Logger;
  /** The scheme, host and address of the client (behind a trusted proxy, as it says). */
  client(): ClientFacts;
  /** The first of `types` the client prefers (see {@link preferredType}). */
  accepts(...types: string[]): string | undefined;
}

/**
 * A route of Dossier's HTTP contract, declared once: its OpenAPI description (method, path, who may
 * call it, schemas), how the mount treats it, and its handler. The router, authentication and scope,
 * the OpenAPI document, the `route` label of metrics and logs all read this one declaration.
 */
export interface Route extends RouteSpec {
  /** Left out of the OpenAPI document: the panel's own pages and assets. */
  readonly hidden?: true;
  /** Served only with an admin token (the admin API, /metrics, the panel's pages); else unknown (404). */
  readonly needsAdminToken?: true;
  /** Headers every answer of the route carries, refusals included, set before anything else. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * For `auth: 'key'`: the handler hands {@link Call.secret} to `dossier.metering`, which checks the key
   * and its scope and counts the lookup in one step; the mount checks nothing itself.
   */
  readonly metered?: true;
  /** For `auth: 'admin'`: the panel's session cookie is taken as well as the token (with a matching `Origin` for a write). */
  readonly session?: true;
  /**
   * The MCP tool that is this route read a second way (docs/contract.md §13), by its name: its input schema
   * the route's parameters and body, its output schema the route's 2xx body, a call of it a request to it.
   */
  readonly tool?: string;
  /** Writes the answer. What it throws is answered by the mount's error map. */
  handle(call: Call): Promise<void> | void;
}

/** How the mount treats each route of a group: {@link Route}'s own fields besides the description and the handler. */
type Handling = Pick<Route, 'needsAdminToken' | 'headers' | 'metered' | 'session'>;

/** What the routes of one group share; {@link routeGroup} adds it to each of them. */
export interface RouteGroup<Status extends number> extends Pick<RouteSpec, 'tag' | 'auth' | 'scope'>, Handling {
  /** The path parameters of a route whose path has `:id`. */
  idParams: TObject;
  /** The media types a request body may come in. */
  bodyTypes: string[];
  /** The group's error answers, by status; each route names those it gives. */
  errors: Record<Status, ResponseSpec>;
}

/** What a route of a group declares itself, after its method, path and operationId. */
export type GroupRouteDetails<Status extends number> = Pick<RouteSpec, 'summary' | 'description' | 'query'> & {
  /** Its request body; the group decides the media types. */
  body?: Omit<NonNullable<RouteSpec['body']>, 'types'>;
  /** Its answers other than the group's errors: mostly the one success. */
  answers: Record<number, ResponseSpec>;
  /** The statuses of the group's errors it may answer with. */
  errors: Status[];
  /** The MCP tool that calls it, if one does. */
  tool?: Route['tool'];
  /** Writes the answer. */
  handle: Route['handle'];
};

/**
 * The maker of the routes of `group`: it declares a route from its method, path, operationId and
 * details, and adds what the group shares.
 */
export function routeGroup<Status extends number>({ idParams, bodyTypes, errors: groupErrors, ...shared }: RouteGroup<Status>) {
  return (
    method: RouteSpec['method'],
    path: string,
    operationId: string,
    { answers, errors, body, ...details }: GroupRouteDetails<Status>,
  ): Route => ({
    method,
    path,
    operationId,
    ...details,
    ...shared,
    ...(path.includes(':id') ? { params: idParams } : {}),
    ...(body !== undefined ? { body: { ...body, types: bodyTypes } } : {}),
    responses: { ...answers, ...Object.fromEntries(errors.map((status) => [status, groupErrors[status]])) },
  });
}

/** The key of a call to a route of `auth: 'key'` that is not metered: the mount authenticated it. */
export function keyOf(call: Call): ApiKey {
  if (call.key === undefined) throw new Error(`${call.request.method} ${call.path} is not a route of auth 'key'.`);
  return call.key;
}

/** What a route served only with an admin token (`needsAdminToken`) finds on its mount, which made it. */
export function panelOf(mount: Mount): { access: AdminAccess; metrics: DossierMetrics } {
  if (mount.access === undefined || mount.metrics === undefined)
    throw new Error('The panel is off: the mount has no admin token.');
  return { access: mount.access, metrics: mount.metrics };
}
