import type { HttpRequest } from '../request.js';
import type { ToolRequest } from './tools.js';

/** The headers of a request that one made on its behalf carries on: its key, and where its client reached the server. */
const CARRIED = new Set(['authorization', 'host', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-for']);

/**
 * A request made on behalf of `from` (a tool's call to its route, a stdio message to `/mcp`), as the route
 * table reads one: under the same mount's prefix, from the same client with the same key, JSON in and out.
 */
export function innerRequest(from: HttpRequest, { method, target, body }: ToolRequest): HttpRequest {
  const bytes = body === undefined ? undefined : Buffer.from(body);
  const own: Record<string, string | undefined> = {
    accept: 'application/json',
    'content-type': bytes && 'application/json',
    'content-length': bytes && String(bytes.byteLength),
  };
  return {
    method,
    target: from.prefix + target,
    prefix: from.prefix,
    header: (name) => (name in own ? own[name] : CARRIED.has(name) ? from.header(name) : undefined),
    body: bytes === undefined ? null : oneChunk(bytes),
    encrypted: from.encrypted,
    remoteAddress: from.remoteAddress,
    signal: from.signal,
    trustProxy: from.trustProxy,
  };
}

/** A body of one chunk. */
async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
