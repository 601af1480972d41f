import { Type, type TSchema } from '@sinclair/typebox';
import { LOOKUP_KINDS, type LookupKind, type Metered, type QuotaState } from '../../lib/index.js';
import { wireLookup } from './lookup-shapes.js';
import type { Reply } from './reply.js';
import type { Call, Route } from './route.js';
import { defineLookupRoute, JSON_TYPE, MAYBE_QUOTA, QUOTA, type HeaderName, type ResponseSpec } from './schemas/define.js';
import {
  apiError,
  DnsData,
  INTERNAL,
  IpData,
  LookupSuccess,
  SslData,
  unauthenticated,
  UsageData,
  WhoisData,
} from './schemas/shapes.js';

// Interface A's lookups (docs/contract.md §2, §6): `GET /api/dns|whois|ip|ssl` and `GET /api/usage`. The
// quota rules live in the core (`dossier.metering`); these handlers only map its outcome to HTTP.

/** The 503 of a store that holds keys or quotas and is down. */
export const storeDown = (headers: Partial<Record<HeaderName, boolean>> = {}): ResponseSpec =>
  apiError('The store that holds keys or quotas is down.', ['service_unavailable'], { 'Retry-After': true, ...headers });

/** The answers of a lookup of interface A (docs/contract.md §2). */
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
    description: '`1` skips the cache for this request (it still counts, and refreshes the cache).',
  }),
);

/** Each lookup's query parameter, the type of its answer, and its line on the reference page. */
const LOOKUPS: Record<LookupKind, { parameter: 'domain' | 'ip'; data: TSchema; title: string; summary: string }> = {
  dns: { parameter: 'domain', data: DnsData, title: 'DnsAnswer', summary: 'DNS records of a domain' },
  whois: { parameter: 'domain', data: WhoisData, title: 'WhoisAnswer', summary: 'Registration of a domain (RDAP, else whois)' },
  ip: { parameter: 'ip', data: IpData, title: 'IpAnswer', summary: 'Reverse DNS, location and network of an IP address' },
  ssl: { parameter: 'domain', data: SslData, title: 'SslAnswer', summary: 'The TLS certificate a domain serves' },
};

function lookupRoute(kind: LookupKind): Route {
  const { parameter, data, title, summary } = LOOKUPS[kind];
  return {
    ...defineLookupRoute({
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
    }),
    metered: true,
    tool: `${kind}_lookup`,
    async handle(call) {
      const params = new URLSearchParams(call.query);
      const fresh = isFresh(oneOrAll(params, 'fresh'));
      const outcome = await call.dossier.metering.lookup(call.secret, kind, oneOrAll(params, parameter), {
        fresh,
        logger: call.logger,
      });
      const { data: answer, cached } = settleMetered(call, outcome);
      call.reply.send(200, JSON_TYPE, `{"status":"success","data":${wireJsonOf(kind, answer)},"cached":${cached}}`);
    },
  };
}

/** `GET /api/usage` (docs/contract.md §6): what the key has used, without counting. */
const USAGE_ROUTE: Route = {
  ...defineLookupRoute({
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
  metered: true,
  tool: 'usage',
  async handle(call) {
    const usage = settleMetered(call, await call.dossier.metering.usage(call.secret));
    call.reply.json({
      status: 'success',
      data: {
        key_id: usage.keyId,
        daily_limit: usage.dailyLimit,
        used_today: usage.usedToday,
        remaining: usage.remaining,
        reset_at: new Date(usage.resetAt * 1000).toISOString(),
        history: usage.history,
      },
      cached: false,
    });
  },
};

/** The routes of the four lookups and of the key's usage, in the order of the reference page. */
export const LOOKUP_ROUTES: readonly Route[] = [...LOOKUP_KINDS.map(lookupRoute), USAGE_ROUTE];

/**
 * The wire's JSON text of answers served lately, by answer: the lookup service hands out the same
 * object for as long as an answer stays in its cache, and no one changes it, so a hot answer is put in
 * its wire shape and serialized once, not on every request. Entries go with their answers.
 */
const answerJson = new WeakMap<object, string>();

function wireJsonOf(kind: LookupKind, data: unknown): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify(wireLookup(kind, data));
  let json = answerJson.get(data);
  if (json === undefined) {
    json = JSON.stringify(wireLookup(kind, data));
    answerJson.set(data, json);
  }
  return json;
}

/**
 * What every metered answer carries, error or not: the quota headers, and the key's id in the request's
 * log lines. Then the value, or the outcome's error thrown for the error map.
 */
export function settleMetered<T>(call: Call, outcome: Metered<T>): T {
  if (outcome.key !== null) call.context.key_id = outcome.key.id;
  if (outcome.quota !== null) setQuotaHeaders(call.reply, outcome.quota, call.dossier.options.clock.now());
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** `fresh=1` (or `true`) asks past the cache (docs/contract.md §8); anything else does not. */
function isFresh(value: string | string[] | undefined): boolean {
  return value === '1' || value === 'true';
}

/** One query parameter: its value, every value when repeated (which the lookups refuse), or undefined. */
function oneOrAll(params: URLSearchParams, name: string): string | string[] | undefined {
  const values = params.getAll(name);
  return values.length > 1 ? values : values[0];
}

/**
 * `X-RateLimit-*` (docs/contract.md §2) and the fields of draft-ietf-httpapi-ratelimit-headers-10 (§6).
 * @param now ms since the epoch
 */
export function setQuotaHeaders(reply: Reply, quota: QuotaState, now: number): void {
  const secondsToReset = Math.max(0, quota.resetAt - Math.floor(now / 1000));
  reply
    .header('X-RateLimit-Limit', quota.limit)
    .header('X-RateLimit-Remaining', quota.remaining)
    .header('X-RateLimit-Reset', quota.resetAt)
    .header('RateLimit-Policy', `"daily";q=${quota.limit};w=86400`)
    .header('RateLimit', `"daily";r=${quota.remaining};t=${secondsToReset}`);
}
