import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Dossier } from '../../lib/dossier.js';
import { DossierError, DossierRetryableError, isDossierError } from '../../lib/errors.js';
import type { LookupKind } from '../../lib/ports/lookup-service.js';
import type { QuotaState } from '../../lib/ports/quota-store.js';
import { authenticate, requireScope } from './auth.js';

/** The query parameter of each lookup. */
const PARAMETERS: Record<LookupKind, string> = { dns: 'domain', whois: 'domain', ip: 'ip', ssl: 'domain' };

/**
 * Interface A: `GET /api/dns|whois|ip|ssl`. Order matters for what counts against the quota: the key
 * is checked, then its scope, then the parameter (no I/O), and only then is a request counted. A
 * target refused after resolution is given back, since a 400 does not count.
 */
export function addLookupRoutes(router: Router, dossier: Dossier): void {
  for (const [path, handler] of lookupHandlers(dossier)) router.get(path, handler);
}

/** The handler of each lookup, by its path (`/api/dns`, …). */
export function lookupHandlers(dossier: Dossier): Map<string, (ctx: Context) => Promise<void>> {
  return new Map((Object.keys(PARAMETERS) as LookupKind[]).map((kind) => [`/api/${kind}`, lookupHandler(dossier, kind)]));
}

function lookupHandler(dossier: Dossier, kind: LookupKind): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const key = await authenticate(ctx, dossier);
    const limit = dossier.dailyLimitOf(key);
    let quota: QuotaState | undefined;
    try {
      requireScope(key, 'lookup');
      const input = queryParameter(ctx, PARAMETERS[kind]);
      const target = dossier.lookups.parse(kind, input);
      quota = await dossier.quotas.consume(key.id, limit);
      if (!quota.allowed) {
        const retryAfter = Math.max(1, quota.resetAt - Math.floor(dossier.options.clock.now() / 1000));
        throw new DossierRetryableError('ERR_QUOTA_EXCEEDED', `This key has used its ${limit} lookups for today.`, retryAfter);
      }
      const { data, cached } = await dossier.lookups.lookup(kind, target);
      ctx.body = { status: 'success', data, cached };
    } catch (error) {
      if (quota?.allowed && isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED')) {
        try {
          await dossier.quotas.refund(key.id, quota);
          quota = { ...quota, remaining: Math.min(limit, quota.remaining + 1) };
        } catch (refundError) {
          // The 400 is still the answer; the request stays counted.
          dossier.options.logger.warn('quota refund failed', { keyId: key.id, error: String(refundError) });
        }
      }
      quota ??= await peekOrNothing(dossier, key.id, limit, error);
      throw error;
    } finally {
      if (quota) setQuotaHeaders(ctx, quota);
    }
  };
}

/** The quota for the headers of an error answer; none when the store that holds it is what failed. */
async function peekOrNothing(dossier: Dossier, keyId: string, limit: number, error: unknown): Promise<QuotaState | undefined> {
  if (isDossierError(error, 'ERR_STORE_UNAVAILABLE')) return undefined;
  try {
    return await dossier.quotas.peek(keyId, limit);
  } catch (peekError) {
    if (peekError instanceof DossierError) return undefined;
    throw peekError;
  }
}

/** One query parameter: its value, every value when repeated (which the lookups refuse), or undefined. */
function queryParameter(ctx: Context, name: string): string | string[] | undefined {
  // URLSearchParams on the raw query string: Koa's `ctx.query` builds an object of every parameter.
  const values = new URLSearchParams(ctx.querystring).getAll(name);
  return values.length > 1 ? values : values[0];
}

function setQuotaHeaders(ctx: Context, quota: QuotaState): void {
  // Straight to Node's response: these run on every lookup, and the values are plain integers.
  ctx.res.setHeader('X-RateLimit-Limit', quota.limit);
  ctx.res.setHeader('X-RateLimit-Remaining', quota.remaining);
  ctx.res.setHeader('X-RateLimit-Reset', quota.resetAt);
}
