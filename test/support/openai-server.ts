import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake server received. */
export interface RecordedCompletionRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

/** How the fake server answers the next requests. */
export type CompletionBehaviour =
  /** 200 with `choices[0].message.content` = the text (the default answers with a fixed text). */
  | { kind: 'answer'; text: string }
  /** An HTTP error status with a JSON error body. */
  | { kind: 'fail'; status: number }
  /** Reads the request and never answers. */
  | { kind: 'stall' }
  /** 200 with a body that is not JSON. */
  | { kind: 'not-json' }
  /** 200 with JSON that has no usable choices. */
  | { kind: 'no-choices' }
  /** 200 with a JSON body of `bytes` bytes. */
  | { kind: 'huge'; bytes: number }
  /** A slow generator: answers `text` only once `gate` resolves (the test decides when). */
  | { kind: 'gated'; text: string; gate: Promise<void> }
  /** 200 `text/event-stream` when the request asks for `"stream": true`; see {@link StreamBehaviour}. */
  | StreamBehaviour;

/**
 * Streams `pieces` as `chat.completion.chunk` server-sent events, slowly: `delayMs` between pieces
 * (default 10), and after the first `hold` pieces (default: none held) it waits until
 * {@link TestOpenAiServer.release} is called. Then it ends as `end` says:
 * - `done` (default): a chunk with `finish_reason: "stop"`, then `data: [DONE]`;
 * - `break`: the connection is destroyed with no end (a failure mid-stream);
 * - `not-json`: a chunk whose data is not JSON, then `[DONE]`;
 * - `stall`: nothing more, the connection stays open.
 * `split` writes every event in pieces of a few bytes, each flushed on its own, so that events and
 * multi-byte characters arrive cut across network packets. A request without `"stream": true` gets
 * the pieces joined as one ordinary completion.
 */
export interface StreamBehaviour {
  kind: 'stream';
  pieces: string[];
  delayMs?: number;
  hold?: number;
  end?: 'done' | 'break' | 'not-json' | 'stall';
  split?: boolean;
}

/** An OpenAI-compatible chat-completions server on loopback, for tests. */
export interface TestOpenAiServer {
  /** `http://127.0.0.1:PORT/v1`, the form `DOSSIER_OPENAI_BASE_URL` takes. */
  baseUrl: string;
  /** Every request received, oldest first. */
  requests: RecordedCompletionRequest[];
  /** How it answers from now on. */
  behaviour: CompletionBehaviour;
  /** Stalled or streaming requests whose client hung up (aborted) before the answer ended. */
  abandoned: number;
  /** Streams that reached their `hold` and wait for {@link release}. */
  holding: number;
  /** Lets held streams go on (and those that reach their hold later). */
  release(): void;
  close(): Promise<void>;
}

/** Starts a fake chat-completions server on 127.0.0.1, port 0. It answers `POST /v1/chat/completions`. */
export async function startOpenAiServer(
  behaviour: CompletionBehaviour = { kind: 'answer', text: 'Generated text.' },
): Promise<TestOpenAiServer> {
  const state: TestOpenAiServer = {
    baseUrl: '',
    requests: [],
    behaviour,
    abandoned: 0,
    holding: 0,
    release: () => {},
    close: async () => {},
  };
  let released = false;
  const waiting: (() => void)[] = [];
  state.release = () => {
    released = true;
    for (const resume of waiting.splice(0)) resume();
  };
  gates.set(state, async () => {
    if (released) return;
    state.holding += 1;
    await new Promise<void>((resolve) => waiting.push(resolve));
  });
  const server = createServer((request, response) => {
    void handle(state, request, response);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}

/** Each server's hold: resolves once the test released it. */
const gates = new WeakMap<TestOpenAiServer, () => Promise<void>>();

async function handle(state: TestOpenAiServer, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Recorded as text.
  }
  state.requests.push({
    method: request.method ?? '',
    path: request.url ?? '',
    authorization: request.headers.authorization,
    contentType: request.headers['content-type'],
    body,
  });
  if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
    send(response, 404, { error: { message: 'Not found' } });
    return;
  }
  const behaviour = state.behaviour;
  switch (behaviour.kind) {
    case 'answer':
      send(response, 200, {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: 0,
        model: (body as { model?: unknown }).model ?? 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content: behaviour.text }, finish_reason: 'stop' }],
      });
      return;
    case 'fail':
      send(response, behaviour.status, { error: { message: 'The model is overloaded.', type: 'server_error' } });
      return;
    case 'stall':
      response.on('close', () => {
        if (!response.writableEnded) state.abandoned += 1;
      });
      return;
    case 'not-json':
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<html>Bad gateway</html>');
      return;
    case 'no-choices':
      send(response, 200, { id: 'chatcmpl-test', object: 'chat.completion', choices: [] });
      return;
    case 'gated':
      await behaviour.gate;
      send(response, 200, {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: 0,
        model: (body as { model?: unknown }).model ?? 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content: behaviour.text }, finish_reason: 'stop' }],
      });
      return;
    case 'huge':
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { content: 'x'.repeat(behaviour.bytes) } }] }));
      return;
    case 'stream':
      if ((body as { stream?: unknown }).stream !== true) {
        send(response, 200, { choices: [{ index: 0, message: { content: behaviour.pieces.join('') } }] });
        return;
      }
      await stream(state, behaviour, response);
      return;
  }
}

async function stream(state: TestOpenAiServer, behaviour: StreamBehaviour, response: ServerResponse): Promise<void> {
  let broken = false;
  response.on('close', () => {
    if (!response.writableEnded && !broken) state.abandoned += 1;
  });
  response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  response.flushHeaders();
  const write = async (text: string): Promise<void> => {
    if (response.destroyed) return;
    if (!behaviour.split) {
      response.write(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length && !response.destroyed; i += 5) {
      response.write(bytes.subarray(i, i + 5));
      // A turn of the event loop between writes, so that each goes out in a packet of its own.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const event = (data: unknown): string => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    event({
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'test',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  await write(chunk({ role: 'assistant', content: '' }));
  for (const [index, piece] of behaviour.pieces.entries()) {
    if (response.destroyed) return;
    if (index === behaviour.hold) await gates.get(state)?.();
    await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs ?? 10));
    await write(chunk({ content: piece }));
  }
  if (behaviour.hold !== undefined && behaviour.hold >= behaviour.pieces.length) await gates.get(state)?.();
  switch (behaviour.end ?? 'done') {
    case 'done':
      await write(chunk({}, 'stop'));
      await write(event('[DONE]'));
      response.end();
      return;
    case 'break':
      // Time for the pieces written to be read: a destroyed connection drops what its reader has not taken.
      await new Promise((resolve) => setTimeout(resolve, 20));
      broken = true;
      response.destroy();
      return;
    case 'not-json':
      await write(event('{"choices": [oops'));
      await write(event('[DONE]'));
      response.end();
      return;
    case 'stall':
      return;
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
