import type { Context } from 'koa';
import type { ApiKey, Dossier, Scope } from '../../lib/index.js';
import { bearerToken } from '../http/index.js';

/**
 * The secret of the request's `Authorization: Bearer` header, for routes of your own: `null` without
 * such a header, `''` when it names no token.
 */
export function bearerSecret(ctx: Context): string | null {
  return bearerToken(ctx.get('Authorization') || undefined);
}

/**
 * Finds the working key of the request's bearer header, for routes of your own; it must hold `scope`
 * when given.
 * @throws DossierError `ERR_AUTH_MISSING_KEY` without a bearer header, `ERR_AUTH_INVALID_KEY` for an
 *   unknown, expired or revoked key, `ERR_AUTH_INSUFFICIENT_SCOPE`, `ERR_STORE_UNAVAILABLE` when the key
 *   store is down.
 */
export async function authenticate(ctx: Context, dossier: Dossier, scope?: Scope): Promise<ApiKey> {
  return dossier.metering.authenticate(bearerSecret(ctx), scope);
}
