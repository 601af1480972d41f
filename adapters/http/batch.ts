import { Type } from '@sinclair/typebox';
import type { BatchItemOutcome } from '../../lib/index.js';
import { readText } from './body.js';
import { HTTP_ERRORS, logUnexpected } from './errors.js';
import { wireLookup } from './lookup-shapes.js';
import { setQuotaHeaders, settleMetered, storeDown } from './lookups.js';
import type { Route } from './route.js';
import { defineLookupRoute, MAYBE_QUOTA, QUOTA } from './schemas/define.js';
import { apiError, BatchItem, BatchRequest, unauthenticated } from './schemas/shapes.js';

/** The media type of a streamed batch: one JSON item a line. */
const NDJSON = 'application/x-ndjson';

/**
 * `POST /api/batch` (docs/contract.md §8). The rules (what counts, in which order, what is refused) live in
 * `dossier.metering.batch`; this maps its outcome to one JSON answer in the items' order, or with
 * `Accept: application/x-ndjson` to one line per item, each with its `index`, written as it is ready.
 */
export const BATCH_ROUTE: Route = {
  ...defineLookupRoute({
    method: 'post',
    path: '/api/batch',
    operationId: 'batch',
    summary: 'Up to 100 lookups in one request',
    description:
      'Each item counts as one lookup. Items past the remaining quota get `quota_exceeded`; the whole request is a 429 ' +
      'only when nothing remained. With `Accept: application/x-ndjson` the answer streams one item per line, with its `index`.',
    body: { schema: BatchRequest, types: ['application/json'], required: true },
    responses: {
      200: {
        description: 'One item per lookup, in the order given.',
        body: Type.Object(
          { status: Type.Literal('success'), data: Type.Array(BatchItem), cached: Type.Boolean() },
          { additionalProperties: false, title: 'BatchAnswer' },
        ),
        headers: QUOTA,
        alternatives: { 'application/x-ndjson': Type.String({ description: 'one BatchItem (with its index) per line' }) },
      },
      400: apiError('The body is not 1 to 100 lookups.', ['invalid_request']),
      401: unauthenticated,
      403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope'], MAYBE_QUOTA),
      413: apiError('The body, decoded, is larger than 64 KiB.', ['payload_too_large']),
      415: apiError('A `Content-Encoding` other than gzip, deflate or br.', ['unsupported_encoding']),
      429: apiError('Nothing remained of the daily quota.', ['quota_exceeded'], { ...QUOTA, 'Retry-After': true }),
      503: storeDown(MAYBE_QUOTA),
    },
  }),
  metered: true,
  async handle(call) {
    const lines = call.accepts('application/json', NDJSON) === NDJSON ? new Lines() : null;
    const onItem = lines ? (index: number, item: BatchItemOutcome) => lines.push({ index, ...itemBody(item) }) : undefined;
    const batch = await call.dossier.metering.batch(call.secret, () => readText(call.request), { onItem, logger: call.logger });
    const run = settleMetered(call, batch);
    if (lines !== null) {
      // The head goes now, with the quota as the batch took it; the lines follow as the items finish,
      // and the request lasts until the last one (for the request log and a graceful shutdown).
      run.done.then(
        () => lines.end(),
        (error: unknown) => {
          logUnexpected(call.logger, call.path, error);
          // Cut short, so that the client sees an incomplete answer rather than a complete-looking one.
          lines.fail(error);
        },
      );
      call.reply.streamed(
        { 'Content-Type': `${NDJSON}; charset=utf-8`, 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
        lines,
      );
      return;
    }
    const { items, quota } = await run.done;
    if (quota !== null) setQuotaHeaders(call.reply, quota, call.dossier.options.clock.now());
    call.reply.json({ status: 'success', data: items.map(itemBody), cached: false });
  },
};

/** Lines as they come, each a JSON value, read once, in order; an end, or a failure after the last. */
class Lines implements AsyncIterable<string> {
  private readonly pending: string[] = [];
  private state: { ended: boolean; error?: unknown } = { ended: false };
  private wake: (() => void) | undefined;

  push(value: unknown): void {
    this.pending.push(`${JSON.stringify(value)}\n`);
    this.wake?.();
  }

  end(): void {
    this.state = { ended: true };
    this.wake?.();
  }

  fail(error: unknown): void {
    this.state = { ended: true, error };
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const line = this.pending.shift();
      if (line !== undefined) {
        yield line;
        continue;
      }
      if (this.state.ended) {
        if ('error' in this.state) throw this.state.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/** An item as interface A answers it: a single lookup's body, with the item's type and query. */
function itemBody(item: BatchItemOutcome): Record<string, unknown> {
  const head = { type: item.kind, query: item.query };
  if (item.ok) return { ...head, status: 'success', data: wireLookup(item.kind, item.value.data), cached: item.value.cached };
  return { ...head, status: 'error', code: HTTP_ERRORS[item.error.code].code, message: item.error.message };
}
