import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { HeaderName, ResponseSpec } from './define.js';
import { CREATIVITY_VALUES, TEMPLATE_ID_MAX, TEMPLATE_ID_MIN } from '../../../lib/internal.js';

/**
 * The shapes of Dossier's HTTP API (docs/contract.md §2–§9), declared once with TypeBox: each is a JSON
 * Schema (2020-12, as OpenAPI 3.1 takes it) and, through `Static`, the TypeScript type of the same
 * thing. The OpenAPI document, the response checks of the tests and the request validation of the
 * routes that use `validateAgainst` all read these; nothing else describes the API.
 *
 * The request shapes that the core validates as the wire has them (the batch, the fields of a key) are
 * declared in the core, in `lib/schemas/`, and only re-exported here; interface B's are the wire's own
 * (./documents.ts), turned into the library's camelCase input by ../document-shapes.ts. Either way one
 * object is used by the validation and shown by the document.
 */
export { AdminKeyCreate, AdminKeyRoll, AdminKeyUpdate, BatchRequest } from '../../../lib/internal.js';
export { DocumentCreate, DocumentListQuery, DocumentUpdate } from './documents.js';

/** `T` or `null` (docs/contract.md §2: a missing value is `null`, never absent). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An object that has exactly these fields. */
export const Exact = <T extends Parameters<typeof Type.Object>[0]>(
  properties: T,
  options: { description?: string; title?: string } = {},
) => Type.Object(properties, { additionalProperties: false, ...options });

export const IsoDate = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a UTC day, YYYY-MM-DD' });

// ---------------------------------------------------------------- errors

/** Interface A's error body (also the admin API's and the server's own routes'). */
export const ApiError = Exact(
  {
    status: Type.Literal('error'),
    code: Type.String({ description: 'machine-readable: invalid_domain, missing_key, quota_exceeded, …' }),
    message: Type.String({ description: 'a sentence for a person' }),
  },
  { title: 'ApiError' },
);

/**
 * Interface A's error body with the codes of one status: {@link ApiError} (one named schema in the
 * document, for a generated client to import) narrowed to those codes.
 */
export const ApiErrorWith = (...codes: [string, ...string[]]) =>
  Type.Intersect([
    ApiError,
    Type.Object({
      code: codes.length === 1 ? Type.Literal(codes[0]) : Type.Union(codes.map((code) => Type.Literal(code))),
    }),
  ]);

/** A documented interface A error answer: what it means, its codes, the headers it carries. */
export const apiError = (
  description: string,
  codes: [string, ...string[]],
  headers: Partial<Record<HeaderName, boolean>> = {},
): ResponseSpec => ({
  description,
  body: ApiErrorWith(...codes),
  headers,
});

// Interface A's 401 and 500, as the lookup routes and the watch routes answer them.
export const unauthenticated = apiError('No key, or an unknown, revoked or expired one.', ['missing_key', 'invalid_key'], {
  'WWW-Authenticate': true,
});
export const INTERNAL = apiError('Something went wrong on the server (logged; no stack trace is sent).', ['internal_error']);

/** The admin API's 422: interface A's body with the fields at fault. */
export const ApiValidationError = Exact(
  {
    status: Type.Literal('error'),
    code: Type.Literal('invalid_request'),
    message: Type.String(),
    errors: Type.Record(Type.String(), Type.Array(Type.String())),
  },
  { title: 'ApiValidationError' },
);

/** Interface B's (Laravel-shaped) error body; `errors` only with a 422. */
export const DocumentError = Exact(
  {
    message: Type.String(),
    status: Type.Integer(),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), { description: 'field → its problems (422 only)' }),
    ),
  },
  { title: 'DocumentError' },
);

// ---------------------------------------------------------------- interface A data

const Address = Exact({ address: Type.String(), ttl: Type.Integer({ minimum: 0 }) });

/** `GET /api/dns` data. */
export const DnsData = Exact(
  {
    domain: Type.String(),
    exists: Type.Boolean({ description: 'false for a domain that does not exist (every type then empty)' }),
    A: Type.Array(Address),
    AAAA: Type.Array(Address),
    MX: Type.Array(Exact({ exchange: Type.String(), priority: Type.Integer() })),
    NS: Type.Array(Type.String()),
    TXT: Type.Array(Type.String()),
    CNAME: Type.Array(Type.String()),
    SOA: Nullable(
      Exact({
        nsname: Type.String(),
        hostmaster: Type.String(),
        serial: Type.Integer(),
        refresh: Type.Integer(),
        retry: Type.Integer(),
        expire: Type.Integer(),
        minttl: Type.Integer(),
      }),
    ),
    // docs/contract.md §8.
    CAA: Type.Array(Exact({ critical: Type.Boolean(), tag: Type.String(), value: Type.String() })),
    dnssec: Exact({ signed: Type.Boolean(), validated: Nullable(Type.Boolean()) }),
    mail: Exact({
      spf: Nullable(Type.String()),
      dmarc: Nullable(Exact({ policy: Nullable(Type.String()), record: Type.String() })),
    }),
  },
  { title: 'DnsData' },
);
export type DnsData = Static<typeof DnsData>;

/** `GET /api/whois` data. */
export const WhoisData = Exact(
  {
    domain: Type.String(),
    registered: Type.Boolean(),
    registrar: Nullable(Type.String()),
    registrar_url: Nullable(Type.String()),
    registrar_iana_id: Nullable(Type.Union([Type.String(), Type.Integer()])),
    registrar_abuse_email: Nullable(Type.String({ description: "the registrar's abuse contact" })),
    registrant: Exact(
      {
        organization: Nullable(Type.String()),
        country_code: Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' })),
      },
      { description: 'null fields where the registry does not publish them or redacts them' },
    ),
    created_at: Nullable(IsoDate),
    updated_at: Nullable(IsoDate),
    expires_at: Nullable(IsoDate),
    name_servers: Type.Array(Type.String()),
    status: Type.Array(Type.String()),
    dnssec: Nullable(Type.Boolean()),
    whois_server: Nullable(Type.String()),
    source: Type.Union([Type.Literal('rdap'), Type.Literal('whois')]),
    raw: Nullable(Type.String()),
  },
  { title: 'WhoisData' },
);
export type WhoisData = Static<typeof WhoisData>;

/** `GET /api/ip` data. */
export const IpData = Exact(
  {
    ip: Type.String({ description: 'canonical form' }),
    version: Type.Union([Type.Literal(4), Type.Literal(6)]),
    hostname: Nullable(Type.String({ description: 'from reverse DNS' })),
    is_private: Type.Boolean(),
    city: Nullable(Type.String()),
    region: Nullable(Type.String()),
    region_code: Nullable(Type.String()),
    country: Nullable(Type.String()),
    country_code: Nullable(Type.String()),
    continent: Nullable(Type.String()),
    continent_code: Nullable(Type.String()),
    postal_code: Nullable(Type.String()),
    latitude: Nullable(Type.Number()),
    longitude: Nullable(Type.Number()),
    accuracy_radius: Nullable(Type.Number()),
    timezone: Nullable(Type.String()),
    asn: Nullable(Type.Integer()),
    organization: Nullable(Type.String()),
    isp: Nullable(Type.String()),
    network: Nullable(Type.String()),
  },
  { title: 'IpData' },
);
export type IpData = Static<typeof IpData>;

const DistinguishedName = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
  description: 'distinguished-name parts by their short names (CN, O, C, …)',
});

/** `GET /api/ssl` data. */
export const SslData = Exact(
  {
    domain: Type.String(),
    subject: DistinguishedName,
    issuer: DistinguishedName,
    valid_from: IsoDate,
    valid_to: IsoDate,
    days_remaining: Type.Integer(),
    is_valid: Type.Boolean(),
    authorization_error: Nullable(Type.String()),
    hostname_matches: Type.Boolean(),
    subject_alt_names: Type.Array(Type.String()),
    serial_number: Type.String(),
    fingerprint_sha256: Type.String(),
    signature_algorithm: Nullable(Type.String()),
    public_key: Exact({ type: Type.String(), bits: Nullable(Type.Integer()), curve: Nullable(Type.String()) }),
    protocol: Nullable(Type.String()),
    cipher: Nullable(Type.String()),
    chain: Type.Array(
      Exact({
        subject: DistinguishedName,
        issuer: DistinguishedName,
        valid_from: IsoDate,
        valid_to: IsoDate,
        fingerprint_sha256: Type.String(),
        // docs/contract.md §8.
        days_remaining: Type.Integer(),
      }),
    ),
    // docs/contract.md §8.
    expires_first: Exact({ subject: DistinguishedName, valid_to: IsoDate, days_remaining: Type.Integer() }),
  },
  { title: 'SslData' },
);
export type SslData = Static<typeof SslData>;

/** A lookup's success envelope around its data. */
export const LookupSuccess = <T extends TSchema>(data: T, title: string) =>
  Exact(
    { status: Type.Literal('success'), data, cached: Type.Boolean({ description: 'true when the answer came from the cache' }) },
    { title },
  );

/** One day of a key's lookups (docs/contract.md §5, §6). */
export const UsageDay = Exact(
  { date: Day, dns: Type.Integer(), whois: Type.Integer(), ip: Type.Integer(), ssl: Type.Integer(), total: Type.Integer() },
  { title: 'UsageDay' },
);

/** `GET /api/usage` data (docs/contract.md §6). */
export const UsageData = Exact(
  {
    key_id: Type.String(),
    daily_limit: Type.Integer(),
    used_today: Type.Integer({ minimum: 0 }),
    remaining: Type.Integer({ minimum: 0 }),
    reset_at: IsoDate,
    history: Type.Array(UsageDay, { description: '30 days, oldest first' }),
  },
  { title: 'UsageData' },
);

/** What every answer of a batch starts with, success or error. */
const BatchItemHead = {
  index: Type.Optional(Type.Integer({ description: 'in the application/x-ndjson stream only' })),
  type: Type.Union([Type.Literal('dns'), Type.Literal('whois'), Type.Literal('ip'), Type.Literal('ssl')]),
  query: Type.String(),
};

/** One answer of a batch, in the order asked. */
export const BatchItem = Type.Union(
  [
    Exact({
      ...BatchItemHead,
      status: Type.Literal('success'),
      data: Type.Union([DnsData, WhoisData, IpData, SslData]),
      cached: Type.Boolean(),
    }),
    Exact({
      ...BatchItemHead,
      status: Type.Literal('error'),
      code: Type.String(),
      message: Type.String(),
    }),
  ],
  { title: 'BatchItem' },
);

// ---------------------------------------------------------------- interface B

/** A document (docs/contract.md §3). */
export const Document = Exact(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    template: Exact({ id: Type.Integer({ minimum: TEMPLATE_ID_MIN, maximum: TEMPLATE_ID_MAX }), name: Type.String() }),
    prompt: Type.String(),
    creativity: Type.Union(CREATIVITY_VALUES.map((value) => Type.Literal(value))),
    result: Type.String(),
    words: Type.Number({ minimum: 0, description: 'CJK characters count as 0.75 of a word' }),
    favorite: Type.Boolean(),
    created_at: IsoDate,
    updated_at: IsoDate,
  },
  { title: 'Document' },
);
export type Document = Static<typeof Document>;

const Link = Nullable(Type.String());

/** `GET /api/v1/documents`. */
export const DocumentList = Exact(
  {
    data: Type.Array(Document),
    links: Exact({ first: Type.String(), last: Type.String(), prev: Link, next: Link }),
    meta: Exact({
      current_page: Type.Integer({ minimum: 1 }),
      from: Nullable(Type.Integer()),
      last_page: Type.Integer({ minimum: 1 }),
      path: Type.String(),
      per_page: Type.Integer(),
      to: Nullable(Type.Integer()),
      total: Type.Integer({ minimum: 0 }),
    }),
    status: Type.Literal(200),
  },
  { title: 'DocumentList' },
);
export type DocumentList = Static<typeof DocumentList>;

/** `{"data":…,"status":N}`, interface B's envelope of one thing. */
export const Envelope = <T extends TSchema>(data: T, status: 200 | 201, title: string) =>
  Exact({ data, status: Type.Literal(status) }, { title });

/** `DELETE /api/v1/documents/{id}`. */
export const DocumentDeleted = Exact(
  { id: Type.Integer(), object: Type.Literal('document'), deleted: Type.Literal(true), status: Type.Literal(200) },
  { title: 'DocumentDeleted' },
);

/** `GET /api/v1/templates`. */
export const TemplateList = Envelope(
  Type.Array(Exact({ id: Type.Integer(), name: Type.String(), custom: Type.Boolean() })),
  200,
  'TemplateList',
);

// ---------------------------------------------------------------- admin API (docs/contract.md §5)

/** `{"data":…}`, the admin API's envelope. */
export const AdminData = <T extends TSchema>(data: T, title: string) => Exact({ data }, { title });

// ---------------------------------------------------------------- the server's own routes (docs/contract.md §7)

/** `GET /healthz`. */
export const Health = Exact({ status: Type.Literal('ok') }, { title: 'Health' });

const UpDown = Type.Union([Type.Literal('up'), Type.Literal('down')]);

/** `GET /readyz`, 200. */
export const Ready = Exact(
  { status: Type.Literal('ready'), store: Type.Literal('up'), cache: Type.Literal('up') },
  { title: 'Ready' },
);
/** `GET /readyz`, 503. */
export const NotReady = Exact({ status: Type.Literal('unavailable'), store: UpDown, cache: UpDown }, { title: 'NotReady' });
export type Readiness = Static<typeof Ready> | Static<typeof NotReady>;

/** `GET /` for a client that is not a browser. */
export const ServiceIndex = Exact(
  {
    name: Type.Literal('dossier'),
    version: Type.String(),
    // Under the mount's prefix: `/dossier/docs` when mounted at `/dossier`.
    docs: Type.String({ pattern: '^(?:/.*)?/docs$', description: 'The reference page, under the mount prefix.' }),
    openapi: Type.String({ pattern: '^(?:/.*)?/openapi\\.json$', description: 'This document, under the mount prefix.' }),
  },
  { title: 'ServiceIndex' },
);
export type ServiceIndex = Static<typeof ServiceIndex>;
