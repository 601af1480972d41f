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
  | { kind: 'gated'; text: string; gate: Promise<void> };

/** An OpenAI-compatible chat-completions server on loopback, for tests. */
export interface TestOpenAiServer {
  /** `http://127.0.0.1:PORT/v1`, the form `DOSSIER_OPENAI_BASE_URL` takes. */
  baseUrl: string;
  /** Every request received, oldest first. */
  requests: RecordedCompletionRequest[];
  /** How it answers from now on. */
  behaviour: CompletionBehaviour;
  /** Stalled requests whose client hung up (aborted) before an answer. */
  abandoned: number;
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
    close: async () => {},
  };
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
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
