import type { Context } from 'koa';
import type { ApiKey, Dossier, Scope } from '../../lib/index.js';
import { requireScope } from '../../lib/internal.js';
import { noteKeyId } from './request-context.js';

/**
 * The secret of the request's `Authorization: Bearer` header: `null` without such a header, `''` when
 * it names no token.
 */
export function bearerSecret(ctx: Context): string | null {
  const match = /^Bearer(?:\s+(.*))?$/i.exec(ctx.get('Authorization'));
  return match === null ? null : (match[1]?.trim() ?? '');
}

/** The `WWW-Authenticate` of a 401 answered with `code`: `error="invalid_token"` for a token that does not work. */
export function bearerChallenge(code: string): string {
  return code === 'invalid_key' ? 'Bearer realm="dossier", error="invalid_token"' : 'Bearer realm="dossier"';
}

/**
 * Finds the working key of the request's bearer header, which must hold `scope` when given, and names
 * it (its id) in the request's log lines.
 * @throws DossierError `ERR_AUTH_MISSING_KEY` without a bearer header, `ERR_AUTH_INVALID_KEY` for an
 *   unknown, expired or revoked key, `ERR_AUTH_INSUFFICIENT_SCOPE`, `ERR_STORE_UNAVAILABLE` when the key
 *   store is down.
 */
export async function authenticate(ctx: Context, dossier: Dossier, scope?: Scope): Promise<ApiKey> {
  const key = await dossier.metering.authenticate(bearerSecret(ctx));
  noteKeyId(key.id);
  if (scope !== undefined) requireScope(key, scope);
  return key;
}
