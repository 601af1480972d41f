import { type Document, type DocumentStreamEvent, DossierError, type Logger } from '../../lib/index.js';
import { wireDocument } from './document-shapes.js';
import { HTTP_ERRORS, logUnexpected } from './errors.js';

/** True when the `Accept` header asks for `text/event-stream` (with a q-value above 0). */
export function acceptsEventStream(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A streamed creation as Server-Sent Events (docs/contract.md §9): one `event: delta` per piece, the
 * `event: document` at the end, or an `event: error` with `{"message","status"}` when the generation
 * fails after the head went out; nothing more once the client is gone (`signal`).
 *
 * A document counts as stored once its `document` event went to the connection: the writer asks for
 * what comes after the event only once it was written. A client gone before that stores nothing,
 * whenever it left: the event is written only if, a turn of the event loop after the document was
 * stored (a close the client had sent by then has been read), the signal (and the writer, which stops
 * the stream instead) finds the client still there; else the document is removed with `unstore`. A
 * client that leaves once the event was handed to the system keeps its document: it may have read it
 * (a page that opens the document at once closes the stream as soon as it has), and TCP cannot tell.
 */
export async function* eventStream(
  events: AsyncIterable<DocumentStreamEvent>,
  signal: AbortSignal,
  path: string,
  logger: Logger,
  unstore: (document: Document) => Promise<unknown>,
): AsyncGenerator<string> {
  try {
    for await (const event of events) {
      if (event.type === 'delta') {
        yield serverSentEvent('delta', { text: event.text });
        continue;
      }
      let written = false;
      try {
        await polled();
        if (signal.aborted) continue;
        yield serverSentEvent('document', wireDocument(event.document));
        written = true;
      } finally {
        if (!written) await unstore(event.document).catch((error: unknown) => logUnexpected(logger, path, error));
      }
    }
  } catch (error) {
    // A client that went away hears nothing more; the generation stopped because of it.
    if (!signal.aborted) yield serverSentEvent('error', streamError(error, path, logger));
  }
}

function serverSentEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The `error` event's data for what the generation threw; logged like a 5xx answer. */
function streamError(error: unknown, path: string, logger: Logger): { message: string; status: number } {
  if (error instanceof DossierError) {
    const { status } = HTTP_ERRORS[error.code];
    if (status >= 500) logger.warn('stream failed', { path, code: error.code, message: error.message });
    return { message: error.message, status };
  }
  logUnexpected(logger, path, error);
  return { message: 'Server Error.', status: 500 };
}

/**
 * Resolves once the event loop has polled for I/O at least once: what had arrived on a connection
 * (a client's close) has been read by then.
 */
export async function polled(): Promise<void> {
  for (let turn = 0; turn < 2; turn += 1) await new Promise<void>((resolve) => nextTurn(resolve));
}

/** Node's (and Bun's, Deno's) `setImmediate`: after the I/O of this turn; a timer elsewhere. */
const nextTurn: (run: () => void) => void = globalThis.setImmediate ?? ((run) => setTimeout(run, 0));
