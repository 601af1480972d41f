import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { AdminUsageQuery } from '../../../lib/internal.js';
import {
  defineLookupRoute,
  defineRoute,
  MAYBE_QUOTA,
  QUOTA,
  type HeaderName,
  type ResponseSpec,
  type RouteSpec,
} from './define.js';
import {
  AdminData,
  AdminKey,
  AdminKeyCreate,
  AdminKeyRoll,
  AdminKeyUpdate,
  AdminKeyWithSecret,
  ApiError,
  apiError,
  ApiErrorWith,
  ApiValidationError,
  BatchItem,
  BatchRequest,
  DnsData,
  Document,
  DocumentCreate,
  DocumentDeleted,
  DocumentError,
  DocumentEvents,
  DocumentList,
  DocumentListQuery,
  DocumentUpdate,
  Envelope,
  Health,
  INTERNAL,
  IpData,
  LookupSuccess,
  NotReady,
  Ready,
  ServiceIndex,
  SslData,
  TemplateList,
  UsageData,
  unauthenticated,
  UsageDay,
  WhoisData,
} from './shapes.js';
import { WATCH_ROUTES, WatchData } from './watch-shapes.js';

// ---------------------------------------------------------------- responses shared by routes

const storeDown = (headers: Partial<Record<HeaderName, boolean>> = {}): ResponseSpec =>
  apiError('The store that holds keys or quotas is down.', ['service_unavailable'], { 'Retry-After': true, ...headers });

/** The answers of a lookup of interface A (CONTRACT.md §2). */
function lookupResponses(data: TSchema, title: string, invalid: string): Record<number, ResponseSpec> {
  return {
    200: { description: 'The record.', body: LookupSuccess(data, title), headers: QUOTA },
    400: apiError(
      'The parameter is missing or malformed, or the target is not allowed.',
      [invalid, 'target_not_allowed'],
      MAYBE_QUOTA,
    ),
    401: unauthenticated,
    403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope'], MAYBE_QUOTA),
    429: apiError('The key has used its daily quota.', ['quota_exceeded'], { ...QUOTA, 'Retry-After': true }),
    502: apiError('The upstream (DNS, whois, RDAP or TLS peer) failed.', ['upstream_error'], MAYBE_QUOTA),
    503: storeDown(MAYBE_QUOTA),
    504: apiError('The upstream did not answer in time.', ['upstream_timeout'], MAYBE_QUOTA),
    500: INTERNAL,
    501: apiError('This server was built without this lookup.', ['not_implemented'], MAYBE_QUOTA),
  };
}

const FRESH = Type.Optional(
  Type.String({
    description: 'CONTRACT.md §8: `1` skips the cache for this request (it still counts, and refreshes the cache).',
  }),
);

function lookupRoute(kind: string, parameter: 'domain' | 'ip', data: TSchema, title: string, summary: string): RouteSpec {
  return defineLookupRoute({
    method: 'get',
    path: `/api/${kind}`,
    operationId: `${kind}Lookup`,
    summary,
    query: Type.Object({
      [parameter]: Type.String({
        description: parameter === 'ip' ? 'an IPv4 or IPv6 address' : 'a domain name (Unicode or punycode)',
      }),
      fresh: FRESH,
    }),
    responses: lookupResponses(data, title, parameter === 'ip' ? 'invalid_ip' : 'invalid_domain'),
  });
}

const documentError = (description: string, headers: Partial<Record<HeaderName, boolean>> = {}): ResponseSpec => ({
  description,
  body: DocumentError,
  headers,
});
const DOCUMENT_ERRORS = {
  401: documentError('`Unauthenticated.`: no key, or an unknown or revoked one.', { 'WWW-Authenticate': true }),
  403: documentError('The key lacks the `documents` scope.'),
  404: documentError("`Resource not found.`: no such document for this key's owner, or a bad id."),
  413: documentError('The body is larger than 64 KiB.'),
  415: documentError('The body is neither form-encoded nor JSON.'),
  422: documentError('Validation failed; `errors` names each field at fault.'),
  502: documentError('The text generator failed or answered nonsense.'),
  503: documentError('The document store is down.', { 'Retry-After': true }),
  504: documentError('The text generator did not answer in time.'),
  500: documentError('`Server Error.`: something went wrong on the server (logged).'),
} satisfies Record<number, ResponseSpec>;

const DOCUMENT_ID = Type.Object({ id: Type.String({ pattern: '^[1-9]\\d*$', description: "the document's id" }) });
const WRITE_TYPES = ['application/x-www-form-urlencoded', 'application/json'];

const adminError = (description: string, code: string, headers?: ResponseSpec['headers']): ResponseSpec => ({
  description,
  body: ApiErrorWith(code),
  ...(headers === undefined ? {} : { headers }),
});
/** The lock-out of an address after five wrong admin tokens in a minute (CONTRACT.md §5). */
const LOCKED_OUT = adminError(
  'Five wrong admin tokens came from this address within a minute: it is locked out for a minute, whatever the token.',
  'locked_out',
  { 'Retry-After': true },
);
const ADMIN_ERRORS = {
  401: apiError('No admin token or session, or a wrong one.', ['missing_key', 'invalid_key'], { 'WWW-Authenticate': true }),
  403: adminError('A write with the session cookie but without a matching Origin.', 'invalid_origin'),
  404: apiError('No such key, or the admin API is off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
  413: adminError('The body is larger than 64 KiB.', 'payload_too_large'),
  422: { description: 'A bad body: `errors` names each field at fault.', body: ApiValidationError },
  429: LOCKED_OUT,
  503: storeDown(),
} satisfies Record<number, ResponseSpec>;
const KEY_ID = Type.Object({ id: Type.String({ description: "the key's id" }) });
const WATCH_ID = Type.Object({ id: Type.String({ description: 'the watch id, wat_…' }) });

/** What the routes of one group share; {@link routeMaker} adds it to each of them. */
interface RouteGroup<Status extends number> extends Pick<RouteSpec, 'tag' | 'auth' | 'scope'> {
  /** The path parameters of a route whose path has `:id`. */
  idParams: TObject;
  /** The media types a request body may come in. */
  bodyTypes: string[];
  /** The group's error answers, by status; each route names those it gives. */
  errors: Record<Status, ResponseSpec>;
}

/** What a route of a group declares itself, after its method, path and operationId. */
type GroupRouteDetails<Status extends number> = Pick<RouteSpec, 'summary' | 'description' | 'query'> & {
  /** Its request body; the group decides the media types. */
  body?: Omit<NonNullable<RouteSpec['body']>, 'types'>;
  /** Its answers other than the group's errors: mostly the one success. */
  answers: Record<number, ResponseSpec>;
  /** The statuses of the group's errors it may answer with. */
  errors: Status[];
};

/**
 * The maker of the routes of `group`: it declares a route from its method, path, operationId and
 * details, and adds what the group shares.
 */
function routeMaker<Status extends number>(group: RouteGroup<Status>) {
  return (
    method: RouteSpec['method'],
    path: string,
    operationId: string,
    { answers, errors, body, ...details }: GroupRouteDetails<Status>,
  ): RouteSpec =>
    defineRoute({
      method,
      path,
      operationId,
      ...details,
      tag: group.tag,
      auth: group.auth,
      ...(group.scope !== undefined ? { scope: group.scope } : {}),
      ...(path.includes(':id') ? { params: group.idParams } : {}),
      ...(body !== undefined ? { body: { ...body, types: group.bodyTypes } } : {}),
      responses: { ...answers, ...Object.fromEntries(errors.map((status) => [status, group.errors[status]])) },
    });
}

/**
 * A route of interface B (CONTRACT.md §3, §9): listed under Documents, for a key with the `documents`
 * scope, the document's id as path parameter when the path has `:id`, a body form-encoded or JSON, and
 * the {@link DOCUMENT_ERRORS} of the statuses it names.
 */
const documentRoute = routeMaker({
  tag: 'Documents',
  auth: 'key',
  scope: 'documents',
  idParams: DOCUMENT_ID,
  bodyTypes: WRITE_TYPES,
  errors: DOCUMENT_ERRORS,
});

/**
 * A route of the admin API (CONTRACT.md §5): listed under Administration, for the admin token or
 * session, the key's id as path parameter when the path has `:id`, a JSON body, and the
 * {@link ADMIN_ERRORS} of the statuses it names.
 */
const ADMIN_GROUP = {
  tag: 'Administration',
  auth: 'admin',
  idParams: KEY_ID,
  bodyTypes: ['application/json'],
  errors: ADMIN_ERRORS,
} satisfies RouteGroup<keyof typeof ADMIN_ERRORS>;
const adminRoute = routeMaker(ADMIN_GROUP);
/** A route of the admin API about one watch: the watch's id as path parameter. */
const adminWatchRoute = routeMaker({ ...ADMIN_GROUP, idParams: WATCH_ID });

/** What a route of the server itself declares, after its method, path and operationId. */
type OperationsRouteDetails = Pick<RouteSpec, 'summary' | 'params'> & {
  /** Who may call it. @default 'none' */
  auth?: RouteSpec['auth'];
  /** All its answers, errors included. */
  answers: Record<number, ResponseSpec>;
};

/** A route of the server itself (CONTRACT.md §7): listed under Operations, open to anyone unless it says otherwise. */
function operationsRoute(
  method: RouteSpec['method'],
  path: string,
  operationId: string,
  { answers, auth = 'none', ...details }: OperationsRouteDetails,
): RouteSpec {
  return defineRoute({ method, path, operationId, ...details, tag: 'Operations', auth, responses: answers });
}

/**
 * Every route of the API, in the order of the reference page. Adding a route is adding one
 * declaration here: the OpenAPI document, the tests' response checks and the `route` label of
 * metrics and logs follow from it.
 */
export const ROUTES: readonly RouteSpec[] = [
  // ---------------------------------------------------------------- interface A (CONTRACT.md §2, §6, §8)
  lookupRoute('dns', 'domain', DnsData, 'DnsAnswer', 'DNS records of a domain'),
  lookupRoute('whois', 'domain', WhoisData, 'WhoisAnswer', 'Registration of a domain (RDAP, else whois)'),
  lookupRoute('ip', 'ip', IpData, 'IpAnswer', 'Reverse DNS, location and network of an IP address'),
  lookupRoute('ssl', 'domain', SslData, 'SslAnswer', 'The TLS certificate a domain serves'),
  defineLookupRoute({
    method: 'get',
    path: '/api/usage',
    operationId: 'usage',
    summary: 'What the key has used today and on each of the last 30 days',
    description: 'Does not count against the quota.',
    responses: {
      200: { description: "The key's usage.", body: LookupSuccess(UsageData, 'UsageAnswer'), headers: MAYBE_QUOTA },
      401: unauthenticated,
      403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope']),
      503: storeDown(),
    },
  }),
  defineLookupRoute({
    method: 'post',
    path: '/api/batch',
    operationId: 'batch',
    summary: 'Up to 100 lookups in one request',
    description:
      'Each item counts as one lookup. Items past the remaining quota get `quota_exceeded`; the whole request is a 429 ' +
      'only when nothing remained. With `Accept: application/x-ndjson` the answer streams one item per line, with its `index`.',
    body: { schema: BatchRequest, types: ['application/json'], required: true },
    responses: {
      200: {
        description: 'One item per lookup, in the order given.',
        body: Type.Object(
          { status: Type.Literal('success'), data: Type.Array(BatchItem), cached: Type.Boolean() },
          { additionalProperties: false, title: 'BatchAnswer' },
        ),
        headers: QUOTA,
        alternatives: { 'application/x-ndjson': Type.String({ description: 'one BatchItem (with its index) per line' }) },
      },
      400: apiError('The body is not 1 to 100 lookups.', ['invalid_request']),
      401: unauthenticated,
      403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope'], MAYBE_QUOTA),
      413: apiError('The body is larger than 64 KiB.', ['bad_request']),
      429: apiError('Nothing remained of the daily quota.', ['quota_exceeded'], { ...QUOTA, 'Retry-After': true }),
      503: storeDown(MAYBE_QUOTA),
    },
  }),

  ...WATCH_ROUTES,

  // ---------------------------------------------------------------- interface B (CONTRACT.md §3, §9)
  documentRoute('get', '/api/v1/documents', 'listDocuments', {
    summary: "List the owner's documents",
    query: DocumentListQuery,
    answers: { 200: { description: 'One page.', body: DocumentList } },
    errors: [401, 403, 422, 503, 500],
  }),
  documentRoute('post', '/api/v1/documents', 'createDocument', {
    summary: 'Generate and store a document',
    description: 'With `Accept: text/event-stream` the answer is a 200 stream of Server-Sent Events (CONTRACT.md §9).',
    body: { schema: DocumentCreate, required: true },
    answers: {
      200: {
        description: 'The text as it is written, then the stored document.',
        contentType: 'text/event-stream',
        body: DocumentEvents,
      },
      201: { description: 'The stored document.', body: Envelope(Document, 201, 'DocumentCreated') },
    },
    errors: [401, 403, 413, 415, 422, 502, 503, 504, 500],
  }),
  documentRoute('get', '/api/v1/documents/:id', 'getDocument', {
    summary: 'Read one document',
    answers: { 200: { description: 'The document.', body: Envelope(Document, 200, 'DocumentAnswer') } },
    errors: [401, 403, 404, 503, 500],
  }),
  ...(['put', 'patch'] as const).map((method) =>
    documentRoute(method, '/api/v1/documents/:id', `${method}Document`, {
      summary: 'Change the fields sent',
      body: { schema: DocumentUpdate },
      answers: { 200: { description: 'The changed document.', body: Envelope(Document, 200, 'DocumentAnswer') } },
      errors: [401, 403, 404, 413, 415, 422, 503, 500],
    }),
  ),
  documentRoute('delete', '/api/v1/documents/:id', 'deleteDocument', {
    summary: 'Delete a document',
    answers: { 200: { description: 'Deleted.', body: DocumentDeleted } },
    errors: [401, 403, 404, 503, 500],
  }),
  documentRoute('get', '/api/v1/templates', 'listTemplates', {
    summary: 'Every template a document can be made from',
    answers: { 200: { description: 'Templates by id.', body: TemplateList } },
    errors: [401, 403, 503, 500],
  }),

  // ---------------------------------------------------------------- admin API (CONTRACT.md §5)
  adminRoute('get', '/admin/api/keys', 'adminListKeys', {
    summary: 'Every key, newest first',
    answers: { 200: { description: 'The keys.', body: AdminData(Type.Array(AdminKey), 'AdminKeyList') } },
    errors: [401, 404, 429, 503],
  }),
  adminRoute('post', '/admin/api/keys', 'adminCreateKey', {
    summary: 'Create a key (its plaintext is shown this once)',
    body: { schema: AdminKeyCreate, required: true },
    answers: { 201: { description: 'The new key and its plaintext.', body: AdminData(AdminKeyWithSecret, 'AdminKeyCreated') } },
    errors: [401, 403, 404, 413, 422, 429, 503],
  }),
  adminRoute('patch', '/admin/api/keys/:id', 'adminUpdateKey', {
    summary: "Change a key's name, scopes, limit or expiry",
    body: { schema: AdminKeyUpdate, required: true },
    answers: { 200: { description: 'The key.', body: AdminData(AdminKey, 'AdminKeyAnswer') } },
    errors: [401, 403, 404, 413, 422, 429, 503],
  }),
  adminRoute('post', '/admin/api/keys/:id/revoke', 'adminRevokeKey', {
    summary: 'Revoke a key (revoking twice is not an error)',
    answers: { 200: { description: 'The key.', body: AdminData(AdminKey, 'AdminKeyAnswer') } },
    errors: [401, 403, 404, 413, 422, 429, 503],
  }),
  adminRoute('post', '/admin/api/keys/:id/roll', 'adminRollKey', {
    summary: 'Give a key a new secret; the old one works for grace_seconds more',
    body: { schema: AdminKeyRoll },
    answers: { 200: { description: 'The key and its new plaintext.', body: AdminData(AdminKeyWithSecret, 'AdminKeyRolled') } },
    errors: [401, 403, 404, 413, 422, 429, 503],
  }),
  adminRoute('get', '/admin/api/keys/:id/watches', 'adminKeyWatches', {
    summary: 'The watches a key created, newest first',
    answers: { 200: { description: 'The watches.', body: AdminData(Type.Array(WatchData), 'AdminKeyWatches') } },
    errors: [401, 404, 429, 503],
  }),
  adminWatchRoute('delete', '/admin/api/watches/:id', 'adminRemoveWatch', {
    summary: 'Remove a watch, as its owner would: no check and no delivery after it',
    answers: {
      204: { description: 'Removed.' },
      404: apiError('No such watch, or the admin API is off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
    },
    errors: [401, 403, 429, 503],
  }),
  adminRoute('get', '/admin/api/keys/:id/usage', 'adminKeyUsage', {
    summary: "A key's lookups per UTC day, oldest first, every day present",
    query: AdminUsageQuery,
    answers: { 200: { description: 'Lookups by day.', body: AdminData(Type.Array(UsageDay), 'AdminKeyUsage') } },
    errors: [401, 404, 422, 429, 503],
  }),
  // The panel is a page, not a call of the admin API: anyone may load it, and it asks for the token to sign in.
  defineRoute({
    method: 'get',
    path: '/admin',
    operationId: 'adminPanel',
    summary: 'The administration panel (HTML)',
    tag: 'Administration',
    auth: 'none',
    responses: {
      200: { description: 'The panel, or a page that says it is off.', contentType: 'text/html', body: Type.String() },
    },
  }),

  // ---------------------------------------------------------------- the server itself (CONTRACT.md §7)
  operationsRoute('get', '/', 'index', {
    summary: 'What this server is; a browser is sent to /docs',
    answers: {
      200: { description: 'For clients that do not ask for HTML.', body: ServiceIndex },
      302: { description: 'For a browser (`Accept: text/html`): to /docs.', headers: { Location: true } },
    },
  }),
  operationsRoute('get', '/healthz', 'health', {
    summary: 'Liveness: 200 while the process serves (no store call)',
    answers: { 200: { description: 'Serving.', body: Health } },
  }),
  operationsRoute('get', '/readyz', 'ready', {
    summary: 'Readiness: the store and the cache answer (within 1 s)',
    answers: {
      200: { description: 'Ready.', body: Ready },
      503: { description: 'The store or the cache did not answer in time.', body: NotReady },
    },
  }),
  operationsRoute('get', '/metrics', 'metrics', {
    summary: 'Prometheus metrics (Authorization: Bearer <DOSSIER_ADMIN_TOKEN>)',
    auth: 'admin',
    answers: {
      200: {
        description: 'Prometheus text format 0.0.4.',
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        body: Type.String(),
      },
      401: apiError('No admin token, or a wrong one.', ['missing_key', 'invalid_key'], { 'WWW-Authenticate': true }),
      404: apiError('Metrics are off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
      429: LOCKED_OUT,
      503: storeDown(),
    },
  }),
  operationsRoute('get', '/openapi.json', 'openapi', {
    summary: 'This document (OpenAPI 3.1)',
    answers: {
      200: { description: 'The OpenAPI document.', body: Type.Object({ openapi: Type.String({ pattern: '^3\\.1\\.' }) }) },
    },
  }),
  operationsRoute('get', '/docs', 'docs', {
    summary: 'The reference page rendered from this document',
    answers: {
      200: { description: 'HTML; every asset is served from here.', contentType: 'text/html', body: Type.String() },
      302: { description: "From /docs/ to /docs, where the page's relative links point.", headers: { Location: true } },
    },
  }),
  operationsRoute('get', '/docs/:asset', 'docsAsset', {
    summary: 'An asset of the reference page',
    params: Type.Object({
      asset: Type.String({ description: 'swagger-ui.css, swagger-ui-bundle.js, init.js or favicon-32x32.png' }),
    }),
    answers: {
      200: {
        description: "The asset, from the swagger-ui-dist package (or the page's own init.js).",
        contentType: 'text/javascript; charset=utf-8',
        body: Type.String(),
        alternatives: { 'text/css; charset=utf-8': Type.String(), 'image/png': Type.String({ contentEncoding: 'binary' }) },
      },
      404: apiError('No such asset.', ['not_found']),
    },
  }),
];

/** The generic error bodies, for answers to paths no route declares (404) or methods it does not (405). */
export const FALLBACK_ERROR = Type.Union([ApiError, DocumentError]);
