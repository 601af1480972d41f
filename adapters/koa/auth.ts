import type { Context } from 'koa';
import type { Dossier } from '../../lib/dossier.js';
import { DossierError } from '../../lib/errors.js';
import type { ApiKey, Scope } from '../../lib/ports/key-store.js';
import { noteKeyId } from './request-context.js';

/**
 * Finds the live key of the request's `Authorization: Bearer` header.
 * @throws DossierError `ERR_AUTH_MISSING_KEY` without a bearer header, `ERR_AUTH_INVALID_KEY` for an
 *   unknown or revoked key, `ERR_STORE_UNAVAILABLE` when the key store is down.
 */
export async function authenticate(ctx: Context, dossier: Dossier): Promise<ApiKey> {
  const match = /^Bearer(?:\s+(.*))?$/i.exec(ctx.get('Authorization'));
  if (match === null) throw new DossierError('ERR_AUTH_MISSING_KEY', 'Send your key as "Authorization: Bearer <key>".');
  const token = match[1]?.trim() ?? '';
  const key = token === '' ? null : await dossier.keys.verify(token);
  if (key === null) throw new DossierError('ERR_AUTH_INVALID_KEY', 'The key is unknown or has been revoked.');
  noteKeyId(key.id);
  return key;
}

/**
 * Refuses a key without `scope`.
 * @throws DossierError `ERR_AUTH_INSUFFICIENT_SCOPE`
 */
export function requireScope(key: ApiKey, scope: Scope): void {
  if (!key.scopes.includes(scope)) {
    throw new DossierError('ERR_AUTH_INSUFFICIENT_SCOPE', `This key does not have the "${scope}" scope.`);
  }
}
