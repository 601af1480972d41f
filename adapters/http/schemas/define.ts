import { Type, type TObject, type TSchema } from '@sinclair/typebox';

/** A response header the API declares, by name. */
export interface HeaderSpec {
  /** What it says. */
  description: string;
  /** The JSON Schema of its value (as text, integers as `integer`). */
  schema: TSchema;
}

/** Every response header of the API, declared once. */
export const HEADERS = {
  'X-Request-Id': {
    description: "The request's own X-Request-Id when it sent one of 1–128 characters of [A-Za-z0-9._:-], else a new one.",
    schema: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' }),
  },
  'X-RateLimit-Limit': { description: "The key's daily lookup quota.", schema: Type.Integer({ minimum: 1 }) },
  'X-RateLimit-Remaining': { description: 'Lookups left today (never negative).', schema: Type.Integer({ minimum: 0 }) },
  'X-RateLimit-Reset': { description: 'Unix seconds of the next UTC midnight.', schema: Type.Integer({ minimum: 0 }) },
  RateLimit: {
    description: 'draft-ietf-httpapi-ratelimit-headers-10: `"daily";r=<remaining>;t=<seconds to the next UTC midnight>`.',
    schema: Type.String({ pattern: '^"daily";r=\\d+;t=\\d+$' }),
  },
  'RateLimit-Policy': {
    description: 'draft-ietf-httpapi-ratelimit-headers-10: `"daily";q=<limit>;w=86400`.',
    schema: Type.String({ pattern: '^"daily";q=\\d+;w=86400$' }),
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: Type.Integer({ minimum: 0 }) },
  'WWW-Authenticate': {
    description: '`Bearer realm="dossier"`, with `error="invalid_token"` for an unknown, revoked or expired key.',
    schema: Type.String({ pattern: '^Bearer realm="dossier"' }),
  },
  Location: { description: 'Where the browser is sent.', schema: Type.String() },
} as const satisfies Record<string, HeaderSpec>;

/** The name of a declared header. */
export type HeaderName = keyof typeof HEADERS;

/** The quota headers of interface A (docs/contract.md §2, §6), on every answer that counts. */
export const QUOTA: Partial<Record<HeaderName, boolean>> = {
  'X-RateLimit-Limit': true,
  'X-RateLimit-Remaining': true,
  'X-RateLimit-Reset': true,
  RateLimit: true,
  'RateLimit-Policy': true,
};
/** Quota headers that an error answer carries when the quota could be read (not when the store failed). */
export const MAYBE_QUOTA: Partial<Record<HeaderName, boolean>> = Object.fromEntries(
  Object.keys(QUOTA).map((name) => [name, false]),
);

/** The `Content-Type` of every JSON answer of the API. */
export const JSON_TYPE = 'application/json; charset=utf-8';
/** The JSON media type as the OpenAPI document names it (generators match media types by name). */
export const JSON_MEDIA = 'application/json';

/** One status of one route. */
export interface ResponseSpec {
  /** What it means. */
  description: string;
  /** Its media type. @default {@link JSON_MEDIA} (when there is a body) */
  contentType?: string;
  /** The schema of its body; none for an empty body. */
  body?: TSchema;
  /** The headers it carries: `true` when always present, `false` when only sometimes. */
  headers?: Partial<Record<HeaderName, boolean>>;
  /** Further media types the same status may be answered in (content negotiation), with their schemas. */
  alternatives?: Record<string, TSchema>;
}

/** A route of the API: everything the OpenAPI document, the router and the metrics need to know of it. */
export interface RouteSpec {
  /** HTTP method, lower case. */
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The route's pattern in the router's syntax (`/api/v1/documents/:id`); also the `route` label of metrics and logs. */
  path: string;
  /** Unique name of the operation. */
  operationId: string;
  /** One line for the reference page. */
  summary: string;
  /** More, in Markdown. */
  description?: string;
  /** The group it is listed under. */
  tag: 'Lookups' | 'Documents' | 'MCP' | 'Administration' | 'Operations';
  /** Who may call it. */
  auth: 'key' | 'admin' | 'none';
  /** The scope the key needs. */
  scope?: 'lookup' | 'documents';
  /** Path parameters. */
  params?: TObject;
  /** Query parameters. */
  query?: TObject;
  /** The request body and the media types it may come in. */
  body?: { schema: TSchema; types: string[]; required?: boolean };
  /** Every status it answers with. */
  responses: Record<number, ResponseSpec>;
}

/** Declares a route: the one place a route of the API is described. */
export function defineRoute(spec: RouteSpec): RouteSpec {
  return spec;
}

/** Declares a route of interface A (docs/contract.md §2): listed under Lookups, for a key with the `lookup` scope. */
export function defineLookupRoute(spec: Omit<RouteSpec, 'tag' | 'auth' | 'scope'>): RouteSpec {
  return { ...spec, tag: 'Lookups', auth: 'key', scope: 'lookup' };
}
