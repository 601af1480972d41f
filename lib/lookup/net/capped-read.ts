/** The bounds of one {@link readCapped}. */
export interface ReadCap {
  /** The most bytes read; one more fails the read. */
  maxBytes: number;
  /** The length the peer announced (a `Content-Length`), if any: over `maxBytes`, the read fails before it starts. */
  declaredBytes?: number;
  /** The error a body over the cap fails with (each caller words its own). */
  tooLong: () => Error;
}

/**
 * Reads a body to its end, never holding more than `cap.maxBytes` of it: a socket, an HTTP response
 * (`node:http`'s, or a `fetch` body). Stops at the first byte over the cap, and leaving the loop
 * destroys (or cancels) the source, so a peer that sends without end costs one cap of memory.
 * The one capped reader of the whois, RDAP and OpenAI-compatible clients.
 * @throws `cap.tooLong()` when the body is longer than the cap; whatever the source throws (a reset,
 *   a premature close).
 */
export async function readCapped(body: AsyncIterable<Uint8Array> | null, cap: ReadCap): Promise<Buffer> {
  if (cap.declaredBytes !== undefined && Number.isFinite(cap.declaredBytes) && cap.declaredBytes > cap.maxBytes) {
    await cancel(body);
    throw cap.tooLong();
  }
  const chunks: Uint8Array[] = [];
  if (body === null) return Buffer.alloc(0);
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > cap.maxBytes) throw cap.tooLong();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Lets go of a body that will not be read. */
async function cancel(body: AsyncIterable<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  const source = body as { cancel?: () => Promise<void>; destroy?: () => void };
  if (typeof source.cancel === 'function') await source.cancel().catch(() => {});
  else source.destroy?.();
}
