import type { Context } from 'koa';
import { type Dossier, DossierValidationError } from '../../../lib/index.js';
import { jsonObject, MAX_BODY_BYTES, readLimited } from '../request-body.js';
import { keyJson, type KeyJson } from '../../keys/key-json.js';

/** Every key, newest first, in the wire form. */
export async function listJson(dossier: Dossier): Promise<KeyJson[]> {
  const keys = await dossier.keys.list();
  return Promise.all(keys.reverse().map((key) => keyJson(dossier, key)));
}

/** A request body past {@link MAX_BODY_BYTES}, answered with a 413. */
export class BodyTooLarge extends Error {}

/**
 * The request body as a JSON object: `{}` when there is none, a 422 (`errors.body`) when it is not a
 * JSON object, a 413 past {@link MAX_BODY_BYTES}. Whatever the `Content-Type` says, the text
 * must be JSON.
 * @throws DossierValidationError, BodyTooLarge
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  const text = await readLimited(ctx, MAX_BODY_BYTES);
  if (text === null) throw new BodyTooLarge(`The body is larger than ${MAX_BODY_BYTES} bytes.`);
  return text.trim() === '' ? {} : jsonObject(text, 'ERR_KEY_INVALID');
}

/**
 * Refuses the fields of `body` that are not in `allowed` (a client that sends `owner` to a route that
 * cannot change it must learn so, not see it ignored).
 * @throws DossierValidationError naming each unknown field
 */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((field) => !allowed.includes(field));
  if (unknown.length > 0) {
    throw new DossierValidationError(
      Object.fromEntries(
        unknown.map((field) => [field, [`Unknown field; this request takes ${allowed.join(', ') || 'no field'}.`]]),
      ),
      undefined,
      'ERR_KEY_INVALID',
    );
  }
}
