import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { serve, SERVER_PROGRAMS, stop, type Served } from '../support/cli.js';
import { leaveStream } from '../support/stream-client.js';
import { LONG_PATIENCE_MS, until } from '../support/until.js';

/** How many streamed creates each test leaves, at each moment. */
const TRIES = 50;
const TOKEN = 'stream-disconnect-admin-token-0123456789';

/**
 * Holds the store's documents from another connection, so that a document cannot be stored until
 * {@link release}: the window between the end of the generation and the `document` event, which a
 * client process slower than the server otherwise leaves in only now and then.
 */
interface DocumentsLock {
  hold(): Promise<void>;
  release(): Promise<void>;
  close(): Promise<void>;
}

/** The store of the test: PostgreSQL when DOSSIER_TEST_POSTGRES is set (its documents table locked), else SQLite. */
function storeOfTest(dir: string): { url: string; lock: () => Promise<DocumentsLock> } {
  const postgres = process.env.DOSSIER_TEST_POSTGRES;
  if (postgres !== undefined) {
    return {
      url: postgres,
      async lock() {
        const client = new pg.Client({ connectionString: postgres });
        await client.connect();
        return {
          // Reads go on (the key, the templates); an insert waits.
          hold: async () => void (await client.query('BEGIN; LOCK TABLE dossier_documents IN EXCLUSIVE MODE')),
          release: async () => void (await client.query('COMMIT')),
          close: () => client.end(),
        };
      },
    };
  }
  const path = join(dir, 'store.sqlite');
  return {
    url: `sqlite://${path}`,
    async lock() {
      const db = new Database(path);
      return {
        // A write transaction of the test's: the server's insert waits on it (its busy timeout).
        hold: async () => void db.exec('BEGIN IMMEDIATE'),
        release: async () => void db.exec('COMMIT'),
        close: async () => void db.close(),
      };
    },
  };
}

/**
 * CONTRACT §9 and §12: a streamed create whose client leaves before the document is stored stores
 * nothing. Each of the four example apps runs in a process of its own, as in production, on one store
 * (the offline generator). A client leaves right after the head, or right after the first `delta`, 50
 * times each, on every mount, while the test holds the store's documents, so that no `document` event
 * can have gone out before the client left: however far the server got (the generation stopped, or
 * ended and waiting to store), once each stream has ended (its log line), nothing is stored. A client
 * that stays gets its document, stored.
 */
describe('a streamed create that the client left, on the four example apps in processes of their own', function () {
  this.timeout(300_000);
  let dir: string;
  let store: ReturnType<typeof storeOfTest>;
  let lock: DocumentsLock;
  const programs = SERVER_PROGRAMS.filter((program) => program.name.startsWith('examples/'));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-stream-disconnect-'));
    store = storeOfTest(dir);
  });
  after(async () => {
    await lock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [number, program] of programs.entries()) {
    describe(program.name, () => {
      let server: Served;
      before(async () => {
        server = await serve(
          {
            DOSSIER_STORE: store.url,
            DOSSIER_CACHE: 'memory://',
            DOSSIER_WORKERS: 'false',
            DOSSIER_ADMIN_TOKEN: TOKEN,
            DOSSIER_GENERATOR: 'offline',
          },
          undefined,
          program,
        );
        lock ??= await store.lock();
      });
      after(() => stop(server.child));

      /** A key of the documents scope for `owner`, made through the admin API. */
      const keyOf = async (owner: string): Promise<string> => {
        const made = await fetch(`${server.url}/admin/api/keys`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: owner, owner, scopes: ['documents'] }),
        });
        expect(made.status).to.equal(201);
        return ((await made.json()) as { data: { key: string } }).data.key;
      };
      const documentsOf = async (key: string): Promise<string[]> => {
        const answer = await fetch(`${server.url}/api/v1/documents?per_page=100`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        return ((await answer.json()) as { data: { name: string }[] }).data.map((document) => document.name);
      };
      /** The streamed creates whose request has ended (logged once the stream is over, however it ended). */
      const streamsEnded = (): number =>
        server
          .err()
          .split('\n')
          .filter((line) => /"msg":"request"/.test(line) && /"method":"POST"/.test(line) && /\/api\/v1\/documents"/.test(line))
          .length;

      // First: the store makes its documents table with the first document.
      it('stores the document of a client that stays', async () => {
        const key = await keyOf(`acct_stays_${number}`);
        const answer = await fetch(`${server.url}/api/v1/documents`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
          body: JSON.stringify({ name: 'kept', prompt: 'a walk in the forest' }),
        });
        const events = await answer.text();
        const document = JSON.parse(/event: document\ndata: (.*)\n/.exec(events)![1]!) as { id: number };
        const read = await fetch(`${server.url}/api/v1/documents/${document.id}`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        expect(((await read.json()) as { data: unknown }).data).to.deep.equal(document);
      });

      for (const when of ['head', 'delta'] as const) {
        it(`stores nothing when the client leaves after the ${when === 'head' ? 'head' : 'first delta'}, ${TRIES} times`, async () => {
          const key = await keyOf(`acct_left_${when}_${number}`);
          for (let n = 0; n < TRIES; n += 1) {
            const before = streamsEnded();
            await lock.hold();
            try {
              const read = await leaveStream(server.url, key, when, `left ${when} ${n}`);
              expect(read, 'a document event before the store could take it').to.equal(false);
            } finally {
              await lock.release();
            }
            await until(() => streamsEnded() > before, `stream ${n} ended`, LONG_PATIENCE_MS);
          }
          expect(await documentsOf(key)).to.deep.equal([]);
        });
      }

      it(`keeps the document of a client that closes as soon as it has read its document event, ${TRIES} times`, async () => {
        const key = await keyOf(`acct_read_${number}`);
        const names: string[] = [];
        for (let n = 0; n < TRIES; n += 1) {
          const before = streamsEnded();
          names.push(`read ${n}`);
          expect(await leaveStream(server.url, key, 'document', `read ${n}`), `stream ${n}`).to.equal(true);
          await until(() => streamsEnded() > before, `stream ${n} ended`, LONG_PATIENCE_MS);
        }
        expect((await documentsOf(key)).sort()).to.deep.equal(names.sort());
      });

      it('wrote only JSON log lines on standard error, the streams that clients left included', () => {
        const lines = server
          .err()
          .split('\n')
          .filter((line) => line !== '');
        expect(lines.length).to.be.greaterThan(2 * TRIES);
        for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.to.throw();
      });
    });
  }
});
