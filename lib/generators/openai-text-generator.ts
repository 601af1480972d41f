import { DossierError } from '../errors.js';
import { readCapped as readCappedBody } from '../lookup/net/capped-read.js';
import type { GenerationRequest, TextGenerator } from '../ports/text-generator.js';
import { contentOf, failed, firstChoice, readChatCompletionChunks } from './chat-completion-chunks.js';

/** Settings of an OpenAI-compatible chat-completions server. */
export interface OpenAiOptions {
  /** Base URL, for example `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Bearer key sent to the server; none for servers that need none. @default undefined */
  apiKey?: string;
  /** Model name. */
  model: string;
}

/** The largest answer read from the server, in bytes; a longer one is refused. */
export const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * The largest streamed answer read, in bytes: each piece comes wrapped in a JSON chunk of its own,
 * so a stream is several times the size of its text.
 */
export const MAX_STREAM_BYTES = 16 * 1024 * 1024;

/**
 * Writes documents with any OpenAI-compatible chat-completions server (OpenAI, Ollama, llama.cpp,
 * vLLM): the template's instruction as the system message, the prompt as the user message, and the
 * creativity as the temperature.
 */
export class OpenAiTextGenerator implements TextGenerator {
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiOptions) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  /**
   * Asks the server for one completion.
   * @throws DossierError `ERR_GENERATOR_TIMEOUT` when `signal` aborts; `ERR_GENERATOR_FAILED` for a
   *   network error, a non-2xx status, an answer over {@link MAX_RESPONSE_BYTES}, or one that is not JSON
   *   with a non-empty `choices[0].message.content`.
   */
  async generate(request: GenerationRequest, signal: AbortSignal): Promise<string> {
    return this.answerText(await this.post(request, signal, false), signal);
  }

  /**
   * The text of one complete (not streamed) answer.
   * @throws DossierError as {@link generate} says.
   */
  private async answerText(response: Response, signal: AbortSignal): Promise<string> {
    let text: string;
    try {
      text = await readCapped(response);
    } catch (error) {
      if (error instanceof DossierError) throw error;
      throw this.failure(signal, 'The text generator broke off its answer.', error);
    }
    if (!response.ok) throw failed(`The text generator answered with HTTP status ${response.status}.`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw failed('The text generator answered with something that is not JSON.');
    }
    const content = contentOf(firstChoice(json)?.message);
    if (content === undefined || content.trim() === '') {
      throw failed('The text generator answered without any text (no choices[0].message.content).');
    }
    return content;
  }

  /**
   * Asks the server for a streamed completion (`"stream": true`) and yields each piece of its server-sent
   * events as it arrives (see {@link readChatCompletionChunks}). A server that ignores `stream` and
   * answers one JSON completion gives its text as one piece. Stopping the iteration, or `signal`
   * aborting, closes the request.
   * @throws DossierError `ERR_GENERATOR_TIMEOUT` when `signal` aborts; `ERR_GENERATOR_FAILED` for a
   *   network error, a non-2xx status, a chunk that is not JSON, a stream broken off before `[DONE]`,
   *   more than {@link MAX_STREAM_BYTES}, or no text at all; also after some pieces were yielded.
   */
  async *stream(request: GenerationRequest, signal: AbortSignal): AsyncGenerator<string> {
    const response = await this.post(request, signal, true);
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw failed(`The text generator answered with HTTP status ${response.status}.`);
    }
    if (!/^text\/event-stream\b/i.test(response.headers.get('Content-Type') ?? '') || response.body === null) {
      yield await this.answerText(response, signal);
      return;
    }
    try {
      yield* readChatCompletionChunks(response.body, MAX_STREAM_BYTES);
    } catch (error) {
      if (error instanceof DossierError && !signal.aborted) throw error;
      throw this.failure(signal, 'The text generator broke off its answer.', error);
    }
  }

  /**
   * Sends the chat-completions request; `stream` asks for server-sent events.
   * @throws DossierError `ERR_GENERATOR_TIMEOUT` when `signal` aborts, `ERR_GENERATOR_FAILED` when the
   *   server cannot be reached.
   */
  private async post(request: GenerationRequest, signal: AbortSignal, stream: boolean): Promise<Response> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    const body = JSON.stringify({
      model: this.options.model,
      messages: [
        { role: 'system', content: request.instruction },
        { role: 'user', content: request.prompt },
      ],
      temperature: request.creativity,
      ...(stream ? { stream: true } : {}),
    });
    try {
      return await fetch(this.endpoint, { method: 'POST', headers, body, signal, redirect: 'error' });
    } catch (error) {
      throw this.failure(signal, 'The text generator could not be reached.', error);
    }
  }

  private failure(signal: AbortSignal, message: string, cause: unknown): DossierError {
    if (signal.aborted) {
      return signal.reason instanceof DossierError
        ? signal.reason
        : new DossierError('ERR_GENERATOR_TIMEOUT', 'The text generator did not answer in time.', { cause });
    }
    return new DossierError('ERR_GENERATOR_FAILED', message, { cause });
  }
}

/** The body as text, refusing one over {@link MAX_RESPONSE_BYTES} without reading it all. */
async function readCapped(response: Response): Promise<string> {
  const body = await readCappedBody(response.body, {
    maxBytes: MAX_RESPONSE_BYTES,
    declaredBytes: Number(response.headers.get('Content-Length') ?? undefined),
    tooLong: () => failed('The text generator answered with more than 2 MiB.'),
  });
  return body.toString('utf8');
}
