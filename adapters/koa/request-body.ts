import type { Context } from 'koa';
import { DossierValidationError, type ErrorCode } from '../../lib/index.js';

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
