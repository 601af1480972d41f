import type Router from '@koa/router';
import type { Context } from 'koa';
import { type Dossier, LOOKUP_KINDS, type LookupKind, type Metered, type QuotaState } from '../../lib/index.js';
import { bearerSecret } from './auth.js';
import { noteKeyId } from './request-context.js';

/** The query parameter of each lookup. */
const PARAMETERS: Record<LookupKind, string> = { dns: 'domain', whois: 'domain', ip: 'ip', ssl: 'domain' };

/**
 * Interface A: `GET /api/dns|whois|ip|ssl` and `GET /api/usage`. The quota rules live in the core
 * (`dossier.metering`); these handlers only map its outcome to HTTP.
 */
export function addLookupRoutes(router: Router, dossier: Dossier): void {
  for (const [path, handler] of lookupHandlers(dossier)) router.get(path, handler);
  router.get('/api/usage', usageHandler(dossier));
}

/** The handler of each lookup, by its path (`/api/dns`, …). */
export function lookupHandlers(dossier: Dossier): Map<string, (ctx: Context) => Promise<void>> {
  return new Map(LOOKUP_KINDS.map((kind) => [`/api/${kind}`, lookupHandler(dossier, kind)]));
}

function lookupHandler(dossier: Dossier, kind: LookupKind): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const fresh = isFresh(queryParameter(ctx, 'fresh'));
    const outcome = await dossier.metering.lookup(bearerSecret(ctx), kind, queryParameter(ctx, PARAMETERS[kind]), { fresh });
    const { data, cached } = settleMetered(ctx, dossier, outcome);
    ctx.type = 'json';
    ctx.body = `{"status":"success","data":${jsonOf(data)},"cached":${cached}}`;
  };
}

/**
 * The JSON text of answers served lately, by answer: the lookup service hands out the same object for
 * as long as an answer stays in its cache, and no one changes it, so a hot answer is serialized once,
 * not on every request. Entries go with their answers.
 */
const answerJson = new WeakMap<object, string>();

function jsonOf(data: unknown): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify(data);
  let json = answerJson.get(data);
  if (json === undefined) {
    json = JSON.stringify(data);
    answerJson.set(data, json);
  }
  return json;
}

/** `GET /api/usage` (CONTRACT.md §6): what the key has used, without counting. */
function usageHandler(dossier: Dossier): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const usage = settleMetered(ctx, dossier, await dossier.metering.usage(bearerSecret(ctx)));
    ctx.body = {
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
    };
  };
}

/**
 * What every metered answer carries, error or not: the quota headers, and the key's id in the request's
 * log lines. Then the value, or the outcome's error thrown for the error middleware.
 */
export function settleMetered<T>(ctx: Context, dossier: Dossier, outcome: Metered<T>): T {
  if (outcome.key !== null) noteKeyId(outcome.key.id);
  if (outcome.quota !== null) setQuotaHeaders(ctx, outcome.quota, dossier.options.clock.now());
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** `fresh=1` (or `true`) asks past the cache (CONTRACT.md §8); anything else does not. */
function isFresh(value: string | string[] | undefined): boolean {
  return value === '1' || value === 'true';
}

/** One query parameter: its value, every value when repeated (which the lookups refuse), or undefined. */
function queryParameter(ctx: Context, name: string): string | string[] | undefined {
  // URLSearchParams on the raw query string: Koa's `ctx.query` builds an object of every parameter.
  const values = new URLSearchParams(ctx.querystring).getAll(name);
  return values.length > 1 ? values : values[0];
}

/**
 * `X-RateLimit-*` (CONTRACT.md §2) and the fields of draft-ietf-httpapi-ratelimit-headers-10 (§6).
 * @param now ms since the epoch
 */
export function setQuotaHeaders(ctx: Context, quota: QuotaState, now: number): void {
  // Straight to Node's response: these run on every lookup, and the values are plain integers.
  const secondsToReset = Math.max(0, quota.resetAt - Math.floor(now / 1000));
  ctx.res.setHeader('X-RateLimit-Limit', quota.limit);
  ctx.res.setHeader('X-RateLimit-Remaining', quota.remaining);
  ctx.res.setHeader('X-RateLimit-Reset', quota.resetAt);
  ctx.res.setHeader('RateLimit-Policy', `"daily";q=${quota.limit};w=86400`);
  ctx.res.setHeader('RateLimit', `"daily";r=${quota.remaining};t=${secondsToReset}`);
}
