import { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import qs from 'qs';
import { DossierValidationError, type ErrorCode } from '../../lib/index.js';
import { RequestError } from './errors.js';
import { mediaTypeOf, saysItHasBody, type HttpRequest } from './request.js';

/** The largest request body accepted, in bytes (docs/contract.md §3: 413 above it). */
export const MAX_BODY_BYTES = 64 * 1024;

/** The body's bytes, at most `limit` of them; `null` when it is, or says it is, larger. */
async function readBytes(body: AsyncIterable<Uint8Array> | null, declared: number, limit: number): Promise<Buffer | null> {
  if (declared > limit) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    size += chunk.byteLength;
    if (size > limit) return null;
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks);
}

/** The length the request declares (`Content-Length`), 0 without one. */
function declaredLength(request: HttpRequest): number {
  return Number(request.header('content-length') ?? 0) || 0;
}

/** The request body as text; `null` when it is, or says it is, larger than `limit` bytes. */
export async function readLimited(request: HttpRequest, limit: number): Promise<string | null> {
  return (await readBytes(request.body, declaredLength(request), limit))?.toString('utf8') ?? null;
}

/**
 * Interface A's one answer to a body past {@link MAX_BODY_BYTES} (batch, watches, the admin API);
 * interface B words its own (errors.ts).
 */
function tooLarge(): RequestError {
  return new RequestError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`);
}

/** A compressed body that does not decompress. */
class UndecodableBody extends Error {}

/**
 * The body's bytes, decoded as its `Content-Encoding` says (gzip, deflate, br or none), at most
 * {@link MAX_BODY_BYTES} once decoded: a small body that inflates past it (a bomb) is stopped there.
 * @throws RequestError 415 for another encoding; `null` past the limit; UndecodableBody when it does not decode
 */
async function readDecoded(request: HttpRequest): Promise<Buffer | null> {
  const encoding = (request.header('content-encoding') || 'identity').trim().toLowerCase();
  const inflate =
    encoding === 'gzip' || encoding === 'deflate' ? createUnzip() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (inflate === undefined && encoding !== 'identity') {
    throw new RequestError(
      415,
      'unsupported_encoding',
      `Unsupported Content-Encoding: ${encoding}; send gzip, deflate, br or none.`,
    );
  }
  if (inflate === undefined) return readBytes(request.body, declaredLength(request), MAX_BODY_BYTES);
  const inflated = Readable.from(request.body ?? []).pipe(inflate);
  try {
    return await readBytes(inflated, 0, MAX_BODY_BYTES);
  } catch {
    throw new UndecodableBody();
  } finally {
    inflated.destroy();
  }
}

/**
 * The request body as text, decoded as its `Content-Encoding` says and at most {@link MAX_BODY_BYTES}
 * once decoded; whether it is JSON is the caller's to say.
 * @throws RequestError 413 above the limit, 415 for an encoding other than gzip, deflate or br, 400 for a
 *   compressed body that does not decompress.
 */
export async function readText(request: HttpRequest): Promise<string> {
  let bytes: Buffer | null;
  try {
    bytes = await readDecoded(request);
  } catch (error) {
    if (!(error instanceof UndecodableBody)) throw error;
    throw new RequestError(400, 'invalid_request', 'The request body does not decompress as its Content-Encoding says.');
  }
  if (bytes === null) throw tooLarge();
  return bytes.toString('utf8');
}

/**
 * A body's text as a JSON object.
 * @throws DossierValidationError (`errors.body`, with `code`) when the text is not a JSON object
 */
export function jsonObject(text: string, code: ErrorCode): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DossierValidationError(code, { body: ['The body must be a JSON object.'] });
  }
  return value as Record<string, unknown>;
}

/**
 * The request body as a JSON object: `{}` when there is none, a 422 (`errors.body`, with `code`) when it
 * is not a JSON object, a 413 past {@link MAX_BODY_BYTES}. Whatever the `Content-Type` says, the text must be JSON.
 * @throws DossierValidationError, RequestError
 */
export async function readJsonObject(request: HttpRequest, code: ErrorCode): Promise<Record<string, unknown>> {
  const text = await readLimited(request, MAX_BODY_BYTES);
  if (text === null) throw tooLarge();
  return text.trim() === '' ? {} : jsonObject(text, code);
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_MEDIA = 'application/json';

/** Whether the request's body is `application/json` (it must say it has a body). */
export function isJsonBody(request: HttpRequest): boolean {
  return saysItHasBody(request) && mediaTypeOf(request) === JSON_MEDIA;
}

/**
 * The fields of a write of interface B: form-encoded (nested and repeated fields read as `qs` reads
 * them, dots included) or a JSON object; no body at all counts as an empty form. Compressed bodies
 * (gzip, deflate, br) are inflated, then held to {@link MAX_BODY_BYTES}; the text is UTF-8.
 * @throws RequestError 415 for another type or an unknown encoding, 413 past the limit;
 *   DossierValidationError (422) for a body that cannot be read or is not an object of fields.
 */
export async function readFields(request: HttpRequest): Promise<Record<string, unknown>> {
  const length = request.header('content-length');
  const empty = !request.header('transfer-encoding') && (length === undefined || Number(length) === 0);
  if (empty && !request.header('content-type')) return {};
  const type = saysItHasBody(request) ? mediaTypeOf(request) : undefined;
  if (type !== FORM && type !== JSON_MEDIA) {
    throw new RequestError(415, 'bad_request', 'The request body must be application/x-www-form-urlencoded or application/json.');
  }
  const text = await readInflated(request);
  let fields: unknown;
  try {
    fields = type === FORM ? qs.parse(text, { allowDots: true }) : strictJson(text);
  } catch {
    throw unreadableBody();
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw unreadableBody();
  return fields as Record<string, unknown>;
}

/** The body as UTF-8 text (a byte order mark dropped), inflated as its `Content-Encoding` says. */
async function readInflated(request: HttpRequest): Promise<string> {
  let bytes: Buffer | null;
  try {
    bytes = await readDecoded(request);
  } catch (error) {
    // Interface B answers its 415 in its own words (errors.ts): the code is never shown.
    if (error instanceof RequestError) throw new RequestError(error.status, 'bad_request', error.message);
    throw unreadableBody();
  }
  if (bytes === null) throw new RequestError(413, 'bad_request', 'request entity too large');
  return new TextDecoder().decode(bytes);
}

/** A JSON object or array, as co-body's strict mode reads it: `{}` for no text, and no `__proto__` key anywhere. */
function strictJson(text: string): unknown {
  if (text === '') return {};
  if (!/^[\x20\x09\x0a\x0d]*(\[|\{)/.test(text)) throw new SyntaxError('only an object or an array');
  return JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__') throw new SyntaxError('a forbidden prototype property');
    return value;
  });
}

/** A body that is not a form or a JSON object of fields is a validation error like any other (422). */
function unreadableBody(): DossierValidationError {
  return new DossierValidationError('ERR_DOCUMENT_INVALID', {
    body: ['The request body must be form fields or a JSON object of fields.'],
  });
}
