import { expect } from 'chai';
import { createJsonLogger } from '../../adapters/http/logging.js';
import { backendCases } from '../contracts/backends.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { leaveStream } from '../support/stream-client.js';
import { until } from '../support/until.js';

/** How many streamed creates each test leaves, at each moment. */
const TRIES = 50;

/**
 * CONTRACT §9 and §12: a streamed create whose client leaves before the document is stored stores
 * nothing. The client leaves right after the head, or right after the first `delta`, 50 times each, on
 * every mount; every one of those streams ends (its request is logged), and no document was stored
 * but those whose `document` event the client had already read (a client slower than the server reads
 * the whole stream in one go; then the answer it read is what is stored). A client that stays gets
 * its document, stored.
 */
const { cases } = backendCases();
for (const backend of cases.filter((one) => one.name === 'memory' || one.name === 'postgres')) {
  describe(`a streamed create that the client left, on ${backend.name}`, function () {
    this.timeout(120_000);
    after(() => backend.cleanup());
    eachAdapter(() => {
      let server: TestServer;
      let lines: string[];
      before(async () => {
        lines = [];
        const logger = createJsonLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
        server = await startTestServer({ store: backend.url(), logger, workers: false });
      });
      after(() => server?.close());

      const streamsEnded = (): number =>
        lines.filter((line) => /"msg":"request"/.test(line) && /"method":"POST"/.test(line)).length;

      for (const when of ['head', 'delta'] as const) {
        it(`stores nothing when the client leaves after the ${when === 'head' ? 'head' : 'first delta'}, ${TRIES} times`, async () => {
          const owner = `left-${when}`;
          const key = await server.key({ name: `leaves ${when}`, owner, scopes: ['documents'] });
          const before = streamsEnded();
          // The names of the clients that read their `document` event before they left: those are stored.
          const delivered: string[] = [];
          for (let n = 0; n < TRIES; n += 1) {
            if (await leaveStream(server.url, key, when, `left ${when} ${n}`)) delivered.push(`left ${when} ${n}`);
          }
          await until(() => streamsEnded() - before === TRIES, `the ${TRIES} streams ended`);
          const stored = await server.dossier.documents.list(owner, { perPage: 100 });
          expect(stored.data.map((document) => document.name).sort()).to.deep.equal(delivered.sort());
          expect(delivered.length, 'clients that read the whole stream before they left').to.be.below(TRIES / 2);
        });
      }

      it('stores the document of a client that stays', async () => {
        const key = await server.key({ name: 'stays', scopes: ['documents'] });
        const answer = await server.get('/api/v1/documents', key, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
          body: JSON.stringify({ name: 'kept', prompt: 'a walk in the forest' }),
        });
        const events = await answer.text();
        const document = JSON.parse(/event: document\ndata: (.*)\n/.exec(events)![1]!) as { id: number };
        const read = await server.get(`/api/v1/documents/${document.id}`, key);
        expect((await read.json()).data).to.deep.equal(document);
      });
    });
  });
}
