import { expect } from 'chai';
import { createParser } from 'eventsource-parser';
import { DossierError } from '../../lib/errors.js';
import type { GenerationRequest, TextGenerator } from '../../lib/ports/text-generator.js';
import { startOpenAiServer, type TestOpenAiServer } from '../support/openai-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { until } from '../support/until.js';

/** One server-sent event as the client read it. */
interface ReadEvent {
  event: string;
  data: unknown;
}

/** Reads the events of an SSE answer one at a time, as they arrive. */
class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly queue: ReadEvent[] = [];
  private readonly parser = createParser({
    onEvent: (event) => this.queue.push({ event: event.event ?? 'message', data: JSON.parse(event.data) }),
  });
  /** True once the server ended the answer. */
  ended = false;

  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next event, or undefined when the answer ended first. */
  async next(): Promise<ReadEvent | undefined> {
    while (this.queue.length === 0 && !this.ended) {
      const { done, value } = await this.reader.read();
      if (done) this.ended = true;
      else this.parser.feed(this.decoder.decode(value, { stream: true }));
    }
    return this.queue.shift();
  }

  /** Every event up to the end of the answer. */
  async rest(): Promise<ReadEvent[]> {
    const events: ReadEvent[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) events.push(event);
    return events;
  }
}

function streamed(fields: Record<string, string>, signal?: AbortSignal): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/event-stream' },
    body: new URLSearchParams(fields).toString(),
    signal,
  };
}

const deltas = (events: ReadEvent[]): string[] =>
  events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text);

eachAdapter(() => {
  describe('streamed generation (Accept: text/event-stream) over HTTP', () => {
    describe('from an OpenAI-compatible server that streams slowly', () => {
      let openai: TestOpenAiServer;
      let server: TestServer;
      let key: string;

      beforeEach(async () => {
        openai = await startOpenAiServer({ kind: 'stream', pieces: ['  Hello', ' wor', 'ld', '!  \n'] });
        server = await startTestServer({
          generator: 'openai',
          openai: { baseUrl: openai.baseUrl, apiKey: 'sk-stream', model: 'test-model' },
          // Far beyond any test: only a disconnect or the test itself ends a held stream.
          generatorTimeoutMs: 60_000,
        });
        key = await server.key({ owner: 'alice' });
      });

      afterEach(async () => {
        openai.release();
        await server.close();
        await openai.close();
      });

      async function total(): Promise<number> {
        return (await (await server.get('/api/v1/documents', key)).json()).meta.total;
      }

      it('sends each piece as a delta before the generation ends, then the stored document', async () => {
        openai.behaviour = { kind: 'stream', pieces: ['  Hello', ' wor', 'ld', '!  \n'], hold: 2 };
        const response = await server.get('/api/v1/documents', key, streamed({ name: 'Greeting', prompt: 'Say hello' }));
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
        expect(response.headers.get('cache-control')).to.include('no-cache');
        expect(response.headers.get('x-accel-buffering')).to.equal('no');
        const reader = new EventReader(response);
        // The server holds the rest of its answer until released: these arrive while it is being written.
        expect(await reader.next()).to.deep.equal({ event: 'delta', data: { text: 'Hello' } });
        expect(await reader.next()).to.deep.equal({ event: 'delta', data: { text: ' wor' } });
        expect(reader.ended).to.equal(false);
        expect(await total()).to.equal(0);
        openai.release();
        const rest = await reader.rest();
        expect(rest.map((e) => e.event)).to.deep.equal(['delta', 'delta', 'document']);
        expect(deltas(rest)).to.deep.equal(['ld', '!']);
        const document = rest[2]!.data as { id: number; result: string; words: number };
        expect(document).to.include({ id: 1, name: 'Greeting', prompt: 'Say hello', result: 'Hello world!', words: 2 });
        const stored = await (await server.get(`/api/v1/documents/${document.id}`, key)).json();
        expect(stored.data).to.deep.equal(document);
        expect(openai.requests[0]!.body).to.deep.include({ model: 'test-model', stream: true });
        expect(openai.abandoned).to.equal(0);
      });

      it('puts together events and characters cut across network packets', async () => {
        const pieces = ['Grüße aus ', '日本語', ' und 🎉', ' emoji.'];
        openai.behaviour = { kind: 'stream', pieces, split: true, delayMs: 1 };
        const events = await new EventReader(
          await server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' })),
        ).rest();
        // Whitespace at the end of a piece waits for the text after it (the stored result is trimmed).
        expect(deltas(events)).to.deep.equal(['Grüße aus', ' 日本語', ' und 🎉', ' emoji.']);
        expect((events.at(-1)!.data as { result: string }).result).to.equal(pieces.join(''));
      });

      it('stops the upstream request and stores nothing when the client disconnects mid-stream', async () => {
        openai.behaviour = { kind: 'stream', pieces: ['One', ' two', ' three'], hold: 1 };
        const client = new AbortController();
        const response = await server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' }, client.signal));
        const reader = new EventReader(response);
        expect(await reader.next()).to.deep.equal({ event: 'delta', data: { text: 'One' } });
        client.abort();
        await until(() => openai.abandoned === 1, 'the upstream request was aborted');
        openai.release();
        expect(await total()).to.equal(0);
        // No id was taken either: the next document is the first.
        openai.behaviour = { kind: 'stream', pieces: ['ok'] };
        const events = await new EventReader(
          await server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' })),
        ).rest();
        expect((events.at(-1)!.data as { id: number }).id).to.equal(1);
      });

      for (const [label, end, message] of [
        ['breaks off the connection', 'break', 'The text generator broke off its answer.'],
        ['streams a chunk that is not JSON', 'not-json', 'The text generator streamed a chunk that is not JSON.'],
      ] as const) {
        it(`sends event: error 502 and stores nothing when the server ${label} mid-stream`, async () => {
          openai.behaviour = { kind: 'stream', pieces: ['Half', ' a text'], end };
          const response = await server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' }));
          expect(response.status).to.equal(200);
          const events = await new EventReader(response).rest();
          expect(events).to.deep.equal([
            { event: 'delta', data: { text: 'Half' } },
            { event: 'delta', data: { text: ' a text' } },
            { event: 'error', data: { message, status: 502 } },
          ]);
          expect(await total()).to.equal(0);
        });
      }

      it('gives the text of a server that ignores "stream" and answers one JSON completion as one piece', async () => {
        openai.behaviour = { kind: 'answer', text: ' One answer. ' };
        const events = await new EventReader(
          await server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' })),
        ).rest();
        expect(events.map((e) => e.event)).to.deep.equal(['delta', 'document']);
        expect(deltas(events)).to.deep.equal(['One answer.']);
        expect(openai.requests[0]!.body).to.deep.include({ stream: true });
      });

      it('sends event: error 502 when the server answers an HTTP error status', async () => {
        openai.behaviour = { kind: 'fail', status: 500 };
        const events = await new EventReader(
          await server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' })),
        ).rest();
        expect(events).to.deep.equal([
          { event: 'error', data: { message: 'The text generator answered with HTTP status 500.', status: 502 } },
        ]);
        expect(await total()).to.equal(0);
      });

      it('sends event: error 504 at the generator deadline, aborts the upstream request and stores nothing', async () => {
        const quick = await startTestServer({
          generator: 'openai',
          openai: { baseUrl: openai.baseUrl, model: 'm' },
          // Far from the first piece, which must be sent before it (the rest of the stream hangs).
          generatorTimeoutMs: 1500,
        });
        try {
          const quickKey = await quick.key();
          openai.behaviour = { kind: 'stream', pieces: ['Slow'], end: 'stall' };
          const events = await new EventReader(
            await quick.get('/api/v1/documents', quickKey, streamed({ name: 'n', prompt: 'p' })),
          ).rest();
          expect(events).to.deep.equal([
            { event: 'delta', data: { text: 'Slow' } },
            { event: 'error', data: { message: 'The text generator did not answer within 1.5 seconds.', status: 504 } },
          ]);
          await until(() => openai.abandoned === 1, 'the upstream request was aborted');
          expect((await (await quick.get('/api/v1/documents', quickKey)).json()).meta.total).to.equal(0);
        } finally {
          await quick.close();
        }
      });

      it('answers validation, authentication and scope errors as JSON before any event, as without streaming', async () => {
        const lookupOnly = await server.key({ owner: 'alice', scopes: ['lookup'] });
        const cases: [string | undefined, Record<string, string>][] = [
          [key, { prompt: 'p' }],
          [key, { name: 'n', prompt: 'p', creativity: '0.3' }],
          [undefined, { name: 'n', prompt: 'p' }],
          ['not-a-key', { name: 'n', prompt: 'p' }],
          [lookupOnly, { name: 'n', prompt: 'p' }],
        ];
        for (const [who, fields] of cases) {
          const plain = await server.get('/api/v1/documents', who, {
            ...streamed(fields),
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          });
          const stream = await server.get('/api/v1/documents', who, streamed(fields));
          expect(stream.status, JSON.stringify(fields)).to.equal(plain.status);
          expect(stream.status).to.be.oneOf([401, 403, 422]);
          expect(stream.headers.get('content-type')).to.equal('application/json; charset=utf-8');
          expect(stream.headers.get('www-authenticate')).to.equal(plain.headers.get('www-authenticate'));
          expect(await stream.json()).to.deep.equal(await plain.json());
        }
        const invalid = await server.get('/api/v1/documents', key, streamed({ prompt: 'p' }));
        expect(invalid.status).to.equal(422);
        expect((await invalid.json()).errors).to.have.property('name');
        expect(openai.requests).to.have.length(0);
      });

      it('answers 201 JSON when the client does not ask for text/event-stream (or refuses it with q=0)', async () => {
        for (const accept of ['application/json', '*/*', 'text/event-stream;q=0, application/json']) {
          const response = await server.get('/api/v1/documents', key, {
            ...streamed({ name: 'n', prompt: 'p' }),
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: accept },
          });
          expect(response.status, accept).to.equal(201);
          expect((await response.json()).data.result).to.equal('Hello world!');
        }
        expect(openai.requests.map((r) => (r.body as { stream?: unknown }).stream)).to.deep.equal([
          undefined,
          undefined,
          undefined,
        ]);
      });
    });

    describe('from the offline generator', () => {
      let server: TestServer;
      let key: string;

      beforeEach(async () => {
        server = await startTestServer();
        key = await server.key();
      });

      afterEach(async () => {
        await server.close();
      });

      it('streams the draft in pieces that join into the document, the same text as without streaming', async () => {
        const fields = { name: 'Outline', prompt: 'Write a blog post about remote work for small teams', template_id: '6' };
        const response = await server.get('/api/v1/documents', key, streamed(fields));
        expect(response.status).to.equal(200);
        const events = await new EventReader(response).rest();
        const pieces = deltas(events);
        expect(pieces.length).to.be.greaterThan(5);
        expect(events.at(-1)!.event).to.equal('document');
        const document = events.at(-1)!.data as { id: number; result: string };
        expect(pieces.join('')).to.equal(document.result);
        expect((await (await server.get(`/api/v1/documents/${document.id}`, key)).json()).data).to.deep.equal(document);
        const plain = await server.get('/api/v1/documents', key, {
          ...streamed(fields),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        expect((await plain.json()).data.result).to.equal(document.result);
      });
    });

    describe('from a generator of the library user', () => {
      const request = (server: TestServer, key: string): Promise<Response> =>
        server.get('/api/v1/documents', key, streamed({ name: 'n', prompt: 'p' }));

      it('streams a generator without stream() as one piece', async () => {
        const generator: TextGenerator = { generate: async (r: GenerationRequest) => `  Text for ${r.prompt}  ` };
        const server = await startTestServer({ textGenerator: generator });
        try {
          const events = await new EventReader(await request(server, await server.key())).rest();
          expect(events.map((e) => e.event)).to.deep.equal(['delta', 'document']);
          expect(deltas(events)).to.deep.equal(['Text for p']);
        } finally {
          await server.close();
        }
      });

      it('stops at 20480 characters, stores exactly what was streamed, and stops the generator', async () => {
        let stopped = false;
        let given = 0;
        const generator: TextGenerator = {
          generate: async () => 'unused',
          async *stream() {
            try {
              for (;;) {
                given += 1;
                yield 'word '.repeat(200);
              }
            } finally {
              stopped = true;
            }
          },
        };
        const server = await startTestServer({ textGenerator: generator });
        try {
          const key = await server.key();
          const events = await new EventReader(await request(server, key)).rest();
          const document = events.at(-1)!.data as { id: number; result: string };
          expect(document.result).to.have.length(20480);
          expect(deltas(events).join('')).to.equal(document.result);
          expect((await (await server.get(`/api/v1/documents/${document.id}`, key)).json()).data.result).to.equal(
            document.result,
          );
          await until(() => stopped, 'the generator was stopped');
          expect(given).to.equal(21);
        } finally {
          await server.close();
        }
      });

      it('holds the deadline against a generator that ignores its signal', async () => {
        const generator: TextGenerator = {
          generate: async () => 'unused',
          async *stream() {
            yield 'Start';
            await new Promise(() => {});
          },
        };
        const server = await startTestServer({ textGenerator: generator, generatorTimeoutMs: 200 });
        try {
          const events = await new EventReader(await request(server, await server.key())).rest();
          expect(events.at(-1)).to.deep.equal({
            event: 'error',
            data: { message: 'The text generator did not answer within 0.2 seconds.', status: 504 },
          });
        } finally {
          await server.close();
        }
      });

      it('sends the failure of a generator mid-stream as event: error 502', async () => {
        const generator: TextGenerator = {
          generate: async () => 'unused',
          async *stream() {
            yield 'Start';
            throw new DossierError('ERR_GENERATOR_FAILED', 'The model lost its mind.');
          },
        };
        const server = await startTestServer({ textGenerator: generator });
        try {
          const key = await server.key();
          const events = await new EventReader(await request(server, key)).rest();
          expect(events).to.deep.equal([
            { event: 'delta', data: { text: 'Start' } },
            { event: 'error', data: { message: 'The model lost its mind.', status: 502 } },
          ]);
          expect((await (await server.get('/api/v1/documents', key)).json()).meta.total).to.equal(0);
        } finally {
          await server.close();
        }
      });
    });
  });
});
