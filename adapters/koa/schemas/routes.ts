import { Type, type TSchema } from '@sinclair/typebox';
import { AdminUsageQuery } from '../../../lib/schemas/keys.js';
import { defineRoute, type HeaderName, type ResponseSpec, type RouteSpec } from './define.js';
import {
  AdminData,
  AdminKey,
  AdminKeyCreate,
  AdminKeyRoll,
  AdminKeyUpdate,
  AdminKeyWithSecret,
  ApiError,
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
  IpData,
  LookupSuccess,
  NotReady,
  Ready,
  ServiceIndex,
  SslData,
  TemplateList,
  UsageData,
  UsageDay,
  WhoisData,
} from './shapes.js';

// ---------------------------------------------------------------- responses shared by routes

const QUOTA: Partial<Record<HeaderName, boolean>> = {
  'X-RateLimit-Limit': true,
  'X-RateLimit-Remaining': true,
  'X-RateLimit-Reset': true,
  RateLimit: true,
  'RateLimit-Policy': true,
};
/** Quota headers that an error answer carries when the quota could be read (not when the store failed). */
const MAYBE_QUOTA: Partial<Record<HeaderName, boolean>> = Object.fromEntries(Object.keys(QUOTA).map((name) => [name, false]));

const apiError = (
  description: string,
  codes: [string, ...string[]],
  headers: Partial<Record<HeaderName, boolean>> = {},
): ResponseSpec => ({
  description,
  body: ApiErrorWith(...codes),
  headers,
});

const INTERNAL = apiError('Something went wrong on the server (logged; no stack trace is sent).', ['internal_error'], {});
const unauthenticated = apiError('No key, or an unknown, revoked or expired one.', ['missing_key', 'invalid_key'], {
  'WWW-Authenticate': true,
});
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
  return defineRoute({
    method: 'get',
    path: `/api/${kind}`,
    operationId: `${kind}Lookup`,
    summary,
    tag: 'Lookups',
    auth: 'key',
    scope: 'lookup',
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
const documentErrors = (...statuses: (keyof typeof DOCUMENT_ERRORS)[]): Record<number, ResponseSpec> =>
  Object.fromEntries(statuses.map((status) => [status, DOCUMENT_ERRORS[status]]));

const DOCUMENT_ID = Type.Object({ id: Type.String({ pattern: '^[1-9]\\d*$', description: "the document's id" }) });
const WRITE_TYPES = ['application/x-www-form-urlencoded', 'application/json'];

const adminError = (description: string, code: string): ResponseSpec => ({ description, body: ApiErrorWith(code) });
const ADMIN_ERRORS = {
  401: apiError('No admin token or session, or a wrong one.', ['missing_key', 'invalid_key'], { 'WWW-Authenticate': true }),
  403: adminError('A write with the session cookie but without a matching Origin.', 'invalid_origin'),
  404: apiError('No such key, or the admin API is off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
  413: adminError('The body is larger than 64 KiB.', 'payload_too_large'),
  422: { description: 'A bad body: `errors` names each field at fault.', body: ApiValidationError },
  503: storeDown(),
} satisfies Record<number, ResponseSpec>;
const adminErrors = (...statuses: (keyof typeof ADMIN_ERRORS)[]): Record<number, ResponseSpec> =>
  Object.fromEntries(statuses.map((status) => [status, ADMIN_ERRORS[status]]));
const KEY_ID = Type.Object({ id: Type.String({ description: "the key's id" }) });

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
  defineRoute({
    method: 'get',
    path: '/api/usage',
    operationId: 'usage',
    summary: 'What the key has used today and on each of the last 30 days',
    description: 'Does not count against the quota.',
    tag: 'Lookups',
    auth: 'key',
    scope: 'lookup',
    responses: {
      200: { description: "The key's usage.", body: LookupSuccess(UsageData, 'UsageAnswer'), headers: MAYBE_QUOTA },
      401: unauthenticated,
      403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope']),
      503: storeDown(),
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/batch',
    operationId: 'batch',
    summary: 'Up to 100 lookups in one request',
    description:
      'Each item counts as one lookup. Items past the remaining quota get `quota_exceeded`; the whole request is a 429 ' +
      'only when nothing remained. With `Accept: application/x-ndjson` the answer streams one item per line, with its `index`.',
    tag: 'Lookups',
    auth: 'key',
    scope: 'lookup',
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

  // ---------------------------------------------------------------- interface B (CONTRACT.md §3, §9)
  defineRoute({
    method: 'get',
    path: '/api/v1/documents',
    operationId: 'listDocuments',
    summary: "List the owner's documents",
    tag: 'Documents',
    auth: 'key',
    scope: 'documents',
    query: DocumentListQuery,
    responses: { 200: { description: 'One page.', body: DocumentList }, ...documentErrors(401, 403, 422, 503, 500) },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/documents',
    operationId: 'createDocument',
    summary: 'Generate and store a document',
    description: 'With `Accept: text/event-stream` the answer is a 200 stream of Server-Sent Events (CONTRACT.md §9).',
    tag: 'Documents',
    auth: 'key',
    scope: 'documents',
    body: { schema: DocumentCreate, types: WRITE_TYPES, required: true },
    responses: {
      200: {
        description: 'The text as it is written, then the stored document.',
        contentType: 'text/event-stream',
        body: DocumentEvents,
      },
      201: { description: 'The stored document.', body: Envelope(Document, 201, 'DocumentCreated') },
      ...documentErrors(401, 403, 413, 415, 422, 502, 503, 504, 500),
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/documents/:id',
    operationId: 'getDocument',
    summary: 'Read one document',
    tag: 'Documents',
    auth: 'key',
    scope: 'documents',
    params: DOCUMENT_ID,
    responses: {
      200: { description: 'The document.', body: Envelope(Document, 200, 'DocumentAnswer') },
      ...documentErrors(401, 403, 404, 503, 500),
    },
  }),
  ...(['put', 'patch'] as const).map((method) =>
    defineRoute({
      method,
      path: '/api/v1/documents/:id',
      operationId: `${method}Document`,
      summary: 'Change the fields sent',
      tag: 'Documents',
      auth: 'key',
      scope: 'documents',
      params: DOCUMENT_ID,
      body: { schema: DocumentUpdate, types: WRITE_TYPES },
      responses: {
        200: { description: 'The changed document.', body: Envelope(Document, 200, 'DocumentAnswer') },
        ...documentErrors(401, 403, 404, 413, 415, 422, 503, 500),
      },
    }),
  ),
  defineRoute({
    method: 'delete',
    path: '/api/v1/documents/:id',
    operationId: 'deleteDocument',
    summary: 'Delete a document',
    tag: 'Documents',
    auth: 'key',
    scope: 'documents',
    params: DOCUMENT_ID,
    responses: { 200: { description: 'Deleted.', body: DocumentDeleted }, ...documentErrors(401, 403, 404, 503, 500) },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/templates',
    operationId: 'listTemplates',
    summary: 'Every template a document can be made from',
    tag: 'Documents',
    auth: 'key',
    scope: 'documents',
    responses: { 200: { description: 'Templates by id.', body: TemplateList }, ...documentErrors(401, 403, 503, 500) },
  }),

  // ---------------------------------------------------------------- admin API (CONTRACT.md §5)
  defineRoute({
    method: 'get',
    path: '/admin/api/keys',
    operationId: 'adminListKeys',
    summary: 'Every key, newest first',
    tag: 'Administration',
    auth: 'admin',
    responses: {
      200: { description: 'The keys.', body: AdminData(Type.Array(AdminKey), 'AdminKeyList') },
      ...adminErrors(401, 404, 503),
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/api/keys',
    operationId: 'adminCreateKey',
    summary: 'Create a key (its plaintext is shown this once)',
    tag: 'Administration',
    auth: 'admin',
    body: { schema: AdminKeyCreate, types: ['application/json'], required: true },
    responses: {
      201: { description: 'The new key and its plaintext.', body: AdminData(AdminKeyWithSecret, 'AdminKeyCreated') },
      ...adminErrors(401, 403, 404, 413, 422, 503),
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/admin/api/keys/:id',
    operationId: 'adminUpdateKey',
    summary: "Change a key's name, scopes, limit or expiry",
    tag: 'Administration',
    auth: 'admin',
    params: KEY_ID,
    body: { schema: AdminKeyUpdate, types: ['application/json'], required: true },
    responses: {
      200: { description: 'The key.', body: AdminData(AdminKey, 'AdminKeyAnswer') },
      ...adminErrors(401, 403, 404, 413, 422, 503),
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/api/keys/:id/revoke',
    operationId: 'adminRevokeKey',
    summary: 'Revoke a key (revoking twice is not an error)',
    tag: 'Administration',
    auth: 'admin',
    params: KEY_ID,
    responses: {
      200: { description: 'The key.', body: AdminData(AdminKey, 'AdminKeyAnswer') },
      ...adminErrors(401, 403, 404, 413, 422, 503),
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/api/keys/:id/roll',
    operationId: 'adminRollKey',
    summary: 'Give a key a new secret; the old one works for grace_seconds more',
    tag: 'Administration',
    auth: 'admin',
    params: KEY_ID,
    body: { schema: AdminKeyRoll, types: ['application/json'] },
    responses: {
      200: { description: 'The key and its new plaintext.', body: AdminData(AdminKeyWithSecret, 'AdminKeyRolled') },
      ...adminErrors(401, 403, 404, 413, 422, 503),
    },
  }),
  defineRoute({
    method: 'get',
    path: '/admin/api/keys/:id/usage',
    operationId: 'adminKeyUsage',
    summary: "A key's lookups per UTC day, oldest first, every day present",
    tag: 'Administration',
    auth: 'admin',
    params: KEY_ID,
    query: AdminUsageQuery,
    responses: {
      200: { description: 'Lookups by day.', body: AdminData(Type.Array(UsageDay), 'AdminKeyUsage') },
      ...adminErrors(401, 404, 422, 503),
    },
  }),
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
  defineRoute({
    method: 'get',
    path: '/',
    operationId: 'index',
    summary: 'What this server is; a browser is sent to /docs',
    tag: 'Operations',
    auth: 'none',
    responses: {
      200: { description: 'For clients that do not ask for HTML.', body: ServiceIndex },
      302: { description: 'For a browser (`Accept: text/html`): to /docs.', headers: { Location: true } },
    },
  }),
  defineRoute({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Liveness: 200 while the process serves (no store call)',
    tag: 'Operations',
    auth: 'none',
    responses: { 200: { description: 'Serving.', body: Health } },
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    operationId: 'ready',
    summary: 'Readiness: the store and the cache answer (within 1 s)',
    tag: 'Operations',
    auth: 'none',
    responses: {
      200: { description: 'Ready.', body: Ready },
      503: { description: 'The store or the cache did not answer in time.', body: NotReady },
    },
  }),
  defineRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics (Authorization: Bearer <DOSSIER_ADMIN_TOKEN>)',
    tag: 'Operations',
    auth: 'admin',
    responses: {
      200: {
        description: 'Prometheus text format 0.0.4.',
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        body: Type.String(),
      },
      401: apiError('No admin token, or a wrong one.', ['missing_key', 'invalid_key'], { 'WWW-Authenticate': true }),
      404: apiError('Metrics are off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
    },
  }),
  defineRoute({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document (OpenAPI 3.1)',
    tag: 'Operations',
    auth: 'none',
    responses: {
      200: { description: 'The OpenAPI document.', body: Type.Object({ openapi: Type.String({ pattern: '^3\\.1\\.' }) }) },
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs',
    operationId: 'docs',
    summary: 'The reference page rendered from this document',
    tag: 'Operations',
    auth: 'none',
    responses: {
      200: { description: 'HTML; every asset is served from here.', contentType: 'text/html', body: Type.String() },
      302: { description: 'From /docs/ to /docs, where the page\'s relative links point.', headers: { Location: true } },
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs/:asset',
    operationId: 'docsAsset',
    summary: 'An asset of the reference page',
    tag: 'Operations',
    auth: 'none',
    params: Type.Object({
      asset: Type.String({ description: 'swagger-ui.css, swagger-ui-bundle.js, init.js or favicon-32x32.png' }),
    }),
    responses: {
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
