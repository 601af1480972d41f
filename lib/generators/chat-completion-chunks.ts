import { createParser } from 'eventsource-parser';
import { DossierError } from '../errors.js';

/** The longest server-sent event (or line) buffered while it arrives, in characters. */
export const MAX_EVENT_CHARS = 256 * 1024;

/** What one `chat.completion.chunk` said. */
interface Chunk {
  /** `choices[0].delta.content`, when it is a string. */
  content: string | undefined;
  /** True when `choices[0].finish_reason` is set: the answer is complete. */
  finished: boolean;
}

/**
 * Reads the body of a streamed chat completion (`"stream": true`, OpenAI's server-sent events) as it
 * arrives: yields each non-empty `choices[0].delta.content` in order, and ends at `data: [DONE]`
 * (then stops reading), or at the end of the body once a chunk gave a `finish_reason`. Chunks and
 * characters split across network packets are put back together; comments and other fields are
 * ignored. Stopping the iteration early cancels the body.
 * @param maxBytes the most bytes read; a longer answer is refused.
 * @throws DossierError `ERR_GENERATOR_FAILED` for a chunk that is not JSON, a chunk that reports an
 *   `error`, an event over {@link MAX_EVENT_CHARS}, a body over `maxBytes`, a body that ends before
 *   the answer is complete, or an answer without any text. An error of the body itself (network,
 *   abort) is thrown as it is.
 */
export async function* readChatCompletionChunks(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let problem: DossierError | undefined;
  let done = false;
  let finished = false;
  let wrote = false;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent(event) {
      if (done || problem !== undefined) return;
      if (event.data.trim() === '[DONE]') {
        done = true;
        return;
      }
      let chunk: Chunk;
      try {
        chunk = chunkOf(event.data);
      } catch (error) {
        problem = error as DossierError;
        return;
      }
      if (chunk.content !== undefined && chunk.content !== '') {
        pieces.push(chunk.content);
        wrote = true;
      }
      if (chunk.finished) finished = true;
    },
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') {
        problem ??= failed(`The text generator streamed an event of more than ${MAX_EVENT_CHARS} characters.`);
      }
    },
  });
  let size = 0;
  let ended = false;
  try {
    while (!done && problem === undefined) {
      const { done: end, value } = await reader.read();
      if (end) {
        ended = true;
        parser.feed(decoder.decode());
        break;
      }
      size += value.byteLength;
      if (size > maxBytes) throw failed(`The text generator streamed more than ${maxBytes} bytes.`);
      parser.feed(decoder.decode(value, { stream: true }));
      yield* pieces.splice(0);
    }
    yield* pieces.splice(0);
    if (problem !== undefined) throw problem;
    if (!done && !finished) throw failed('The text generator broke off its answer.');
    if (!wrote) throw failed('The text generator answered without any text (no choices[0].delta.content).');
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * One chunk's content and end.
 * @throws DossierError `ERR_GENERATOR_FAILED` for data that is not JSON or that reports an `error`.
 */
function chunkOf(data: string): Chunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw failed('The text generator streamed a chunk that is not JSON.');
  }
  if (typeof json !== 'object' || json === null) throw failed('The text generator streamed a chunk that is not a JSON object.');
  if ((json as { error?: unknown }).error != null) throw failed('The text generator reported an error in its stream.');
  const choice = firstChoice(json);
  const reason = choice?.finish_reason;
  return { content: contentOf(choice?.delta), finished: typeof reason === 'string' && reason !== '' };
}

/** `choices[0]` of a chat completion or of one of its chunks, when it is an object. */
export function firstChoice(json: unknown): Record<string, unknown> | undefined {
  const choices = (json as { choices?: unknown } | null)?.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  return typeof choice === 'object' && choice !== null ? (choice as Record<string, unknown>) : undefined;
}

/** The `content` of a choice's `message` (or of a chunk's `delta`), when it is a string. */
export function contentOf(part: unknown): string | undefined {
  const content = typeof part === 'object' && part !== null ? (part as { content?: unknown }).content : undefined;
  return typeof content === 'string' ? content : undefined;
}

/** An `ERR_GENERATOR_FAILED` saying `message`. */
export function failed(message: string): DossierError {
  return new DossierError('ERR_GENERATOR_FAILED', message);
}
