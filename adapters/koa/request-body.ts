import type { Context } from 'koa';
import { DossierValidationError, type ErrorCode } from '../../lib/index.js';

/** The largest request body accepted, in bytes (CONTRACT.md §3: 413 above it). */
export const MAX_BODY_BYTES = 64 * 1024;

/** The request body as text; `null` when it is, or says it is, larger than `limit` bytes. */
export async function readLimited(ctx: Context, limit: number): Promise<string | null> {
  if ((ctx.request.length ?? 0) > limit) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The request body as text, at most {@link MAX_BODY_BYTES}; whether it is JSON is the caller's to say.
 * @throws an HTTP error 413 above the limit.
 */
export async function readText(ctx: Context): Promise<string> {
  const text = await readLimited(ctx, MAX_BODY_BYTES);
  return text ?? ctx.throw(413, `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`);
}

/**
 * A body's text as a JSON object.
 * @throws DossierValidationError (`errors.body`, with `code`) when the text is not a JSON object
 */
export function jsonObject(text: string, code?: ErrorCode): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DossierValidationError({ body: ['The body must be a JSON object.'] }, undefined, code);
  }
  return value as Record<string, unknown>;
}
