import type Router from '@koa/router';
import type { ServerResponse } from 'node:http';
import type { BatchItemOutcome, Dossier } from '../../lib/index.js';
import { bearerSecret } from './auth.js';
import { HTTP_ERRORS } from './error-map.js';
import { logUnexpected } from './error-middleware.js';
import { setQuotaHeaders, settleMetered } from './lookup-routes.js';
import { readText } from './request-body.js';

/** The media type of a streamed batch: one JSON item a line. */
const NDJSON = 'application/x-ndjson';

/**
 * `POST /api/batch` (CONTRACT.md §8). The rules (what counts, in which order, what is refused) live in
 * `dossier.metering.batch`; this maps its outcome to one JSON answer in the items' order, or with
 * `Accept: application/x-ndjson` to one line per item, each with its `index`, written as it is ready.
 */
export function addBatchRoutes(router: Router, dossier: Dossier): void {
  router.post('/api/batch', async (ctx) => {
    const lines = ctx.accepts('application/json', NDJSON) === NDJSON ? new NdjsonLines(ctx.res) : null;
    const onItem = lines ? (index: number, item: BatchItemOutcome) => lines.write({ index, ...itemBody(item) }) : undefined;
    const run = settleMetered(ctx, dossier, await dossier.metering.batch(bearerSecret(ctx), () => readText(ctx), { onItem }));
    if (lines !== null) {
      // The head goes now, with the quota as the batch took it; the lines follow as the items finish,
      // and the request lasts until the last one (for the request log and a graceful shutdown).
      ctx.status = 200;
      ctx.respond = false;
      lines.open();
      try {
        await run.done;
        lines.end();
      } catch (error) {
        logUnexpected(dossier.options.logger, ctx.path, error);
        // Cut short, so that the client sees an incomplete answer rather than a complete-looking one.
        ctx.res.destroy();
      }
      return;
    }
    const { items, quota } = await run.done;
    if (quota !== null) setQuotaHeaders(ctx, quota, dossier.options.clock.now());
    ctx.body = { status: 'success', data: items.map(itemBody), cached: false };
  });
}

/** Lines written to the response as they come, held until the head has gone out. */
class NdjsonLines {
  private held: string[] | null = [];

  constructor(private readonly res: ServerResponse) {}

  /** Sends the head (with the headers set so far) and the lines held until now. */
  open(): void {
    this.res.writeHead(200, {
      'Content-Type': `${NDJSON}; charset=utf-8`,
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    const held = this.held ?? [];
    this.held = null;
    for (const line of held) this.send(line);
  }

  /** One JSON value on its own line. */
  write(value: unknown): void {
    const line = `${JSON.stringify(value)}\n`;
    if (this.held !== null) this.held.push(line);
    else this.send(line);
  }

  end(): void {
    if (!this.res.destroyed) this.res.end();
  }

  private send(line: string): void {
    // At most 100 short lines: no need to wait for the client to drain them. A client gone hears nothing.
    if (!this.res.destroyed && !this.res.writableEnded) this.res.write(line);
  }
}

/** An item as interface A answers it: a single lookup's body, with the item's type and query. */
function itemBody(item: BatchItemOutcome): Record<string, unknown> {
  const head = { type: item.kind, query: item.query };
  if (item.ok) return { ...head, status: 'success', data: item.value.data, cached: item.value.cached };
  return { ...head, status: 'error', code: HTTP_ERRORS[item.error.code].code, message: item.error.message };
}
