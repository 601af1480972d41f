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
 * what comes after it only then. A client gone before that (the writer stops the stream instead) stores
 * nothing, whenever it left: the document stored meanwhile is removed with `unstore`.
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
