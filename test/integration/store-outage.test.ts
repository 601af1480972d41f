import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@keyv/redis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startDnsServer } from '../support/dns-server.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { hasMariadbServer, startTestMariadb, type TestMariadb } from '../support/mariadb-server.js';
import { hasRedisServer, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startSlowLink } from '../support/slow-link.js';
import { until } from '../support/until.js';
import { createMysqlBackend } from '../../lib/stores/mysql/backend.js';
import { createPostgresBackend } from '../../lib/stores/postgres/backend.js';

/** Both interfaces answer 503 with their own bodies: a lookup (with Retry-After) and a document list. */
/**
 * The store deadline of the tests that freeze or lock the store: what they prove is that a request is
 * answered at all while the store is stuck (mocha's 20 s would end it otherwise), and the same deadline
 * holds for the requests before, which a loaded machine must still answer within it.
 */
const OUTAGE_DEADLINE_MS = 1500;

async function expectStoreUnavailable(server: TestServer, key: string): Promise<void> {
  const lookup = await server.get('/api/dns?domain=example.test', key);
  expect(lookup.status).to.equal(503);
  expect(lookup.headers.get('Retry-After')).to.match(/^\d+$/);
  expect(await lookup.json()).to.deep.include({ status: 'error', code: 'service_unavailable' });
  const documents = await server.get('/api/v1/documents', key);
  expect(documents.status).to.equal(503);
  expect(await documents.json()).to.deep.include({ status: 503 });
}

/** A session of its own on a SQL store, holding rows locked as another application would. */
interface Locker {
  /** Starts a transaction and locks the counters whose names are like `pattern`; answers how many. */
  lock(pattern: string): Promise<number>;
  commit(): Promise<void>;
  /** Counter `name`'s value, read under a lock: after any statement still queued for the row. */
  valueOf(name: string): Promise<number>;
  /** How many sessions of the server are running a statement that names `text`, this session's aside. */
  running(text: string): Promise<number>;
  end(): Promise<void>;
}

async function postgresLocker(url: string): Promise<Locker> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async lock(pattern) {
      await client.query('BEGIN');
      return (await client.query('SELECT * FROM dossier_counters WHERE name LIKE $1 FOR UPDATE', [pattern])).rowCount ?? 0;
    },
    commit: async () => void (await client.query('COMMIT')),
    async valueOf(name) {
      await client.query('BEGIN');
      const { rows } = await client.query('SELECT value FROM dossier_counters WHERE name = $1 FOR UPDATE', [name]);
      await client.query('COMMIT');
      return Number(rows[0].value);
    },
    async running(text) {
      const { rows } = await client.query(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0",
        [text],
      );
      return Number(rows[0].n);
    },
    end: () => client.end(),
  };
}

async function mysqlLocker(url: string): Promise<Locker> {
  const connection = await mysql.createConnection({ uri: url });
  const rows = async (sql: string, values: unknown[] = []) =>
    (await connection.query(sql, values))[0] as Record<string, unknown>[];
  return {
    async lock(pattern) {
      await connection.query('START TRANSACTION');
      return (await rows('SELECT * FROM dossier_counters WHERE name LIKE ? FOR UPDATE', [pattern])).length;
    },
    commit: async () => void (await connection.query('COMMIT')),
    async valueOf(name) {
      await connection.query('START TRANSACTION');
      const [row] = await rows('SELECT value FROM dossier_counters WHERE name = ? FOR UPDATE', [name]);
      await connection.query('COMMIT');
      return Number(row!.value);
    },
    async running(text) {
      const [row] = await rows(
        "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND command <> 'Sleep' AND LOCATE(?, info) > 0",
        [text],
      );
      return Number(row!.n);
    },
    end: () => connection.end(),
  };
}

const SQL_STORES = [
  {
    name: 'PostgreSQL',
    url: process.env.DOSSIER_TEST_POSTGRES,
    variable: 'DOSSIER_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test',
    port: 5432,
    locker: postgresLocker,
    open: createPostgresBackend,
    stopped: 'cancel',
  },
  {
    name: 'MySQL',
    url: process.env.DOSSIER_TEST_MYSQL,
    variable: 'DOSSIER_TEST_MYSQL=mysql://root@127.0.0.1:3306/test',
    port: 3306,
    locker: mysqlLocker,
    open: createMysqlBackend,
    stopped: 'kill',
  },
];

eachAdapter(() => {
  describe(`a Redis store that goes down and comes back${hasRedisServer ? '' : ' (skipped: no redis-server on PATH)'}`, () => {
    let redis: TestRedis;
    let server: TestServer;

    before(function () {
      if (!hasRedisServer) this.skip();
    });

    beforeEach(async () => {
      redis = await startTestRedis();
      server = await startTestServer({ store: redis.url });
    });

    afterEach(async () => {
      await server.close();
      await redis.close();
    });

    it('answers 503 at once while Redis is down, instead of waiting for it, and works again when it is back', async () => {
      const key = await server.key({ owner: 'alice' });
      expect((await server.get('/api/v1/documents', key)).status).to.equal(200);

      await redis.stop();
      await expectStoreUnavailable(server, key);

      // The data lived only in that Redis (no persistence): the key is gone, but the server reconnects.
      await redis.start();
      await until(async () => (await server.get('/api/v1/documents', key)).status === 401, 'the server reconnected');
      expect((await server.get('/api/v1/documents', await server.key())).status).to.equal(200);
    });

    it('answers 503 at once when Redis refuses the first connection, and connects when it is there', async () => {
      await server.close();
      await redis.stop();
      server = await startTestServer({ store: redis.url });
      const refused = await server.get('/api/dns?domain=example.test', 'dsr_' + 'A'.repeat(43));
      expect(refused.status).to.equal(503);

      await redis.start();
      expect((await server.get('/api/v1/documents', await server.key())).status).to.equal(200);
    });

    it('answers lookups without the cache while a Redis cache is down', async () => {
      const dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
      const cached = await startTestServer({ cache: redis.url, dnsServers: [dns.address] });
      try {
        const key = await cached.key();
        const ask = () => cached.get('/api/dns?domain=example.test', key);
        expect((await (await ask()).json()).cached).to.equal(false);
        await redis.stop();
        // This process keeps what it read lately, so ask for another name than the one it has seen.
        const other = await cached.get('/api/dns?domain=other.example.test', key);
        expect(other.status).to.equal(200);
        expect(await other.json()).to.deep.include({ status: 'success', cached: false });
      } finally {
        await cached.close();
        await dns.close();
      }
    });

    it('reconnects again and again without piling up listeners on its client', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.name);
      process.on('warning', onWarning);
      const killer = createClient({ url: redis.url });
      await killer.connect();
      try {
        const key = await server.key();
        for (let round = 0; round < 15; round += 1) {
          await killer.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
          let status = 503;
          for (let attempt = 0; attempt < 3 && status === 503; attempt += 1) {
            status = (await server.get('/api/v1/documents', key)).status;
          }
          expect(status, `round ${round}`).to.equal(200);
        }
        await sleep(10);
        expect(warnings).to.not.include('MaxListenersExceededWarning');
      } finally {
        process.off('warning', onWarning);
        await killer.quit();
      }
    });
  });

  describe(`a Redis store that stops answering (SIGSTOP) and answers again (SIGCONT)${hasRedisServer ? '' : ' (skipped: no redis-server on PATH)'}`, () => {
    let redis: TestRedis;

    before(function () {
      if (!hasRedisServer) this.skip();
    });

    beforeEach(async () => {
      redis = await startTestRedis();
    });

    afterEach(async () => {
      await redis.close();
    });

    it('answers 503 within the store deadline while Redis accepts connections but never answers, then recovers with nothing lost', async () => {
      const server = await startTestServer({ store: redis.url, storeTimeoutMs: OUTAGE_DEADLINE_MS });
      try {
        const key = await server.key({ owner: 'frozen' });
        const created = await server.get('/api/v1/documents', key, {
          method: 'POST',
          body: new URLSearchParams({ name: 'Kept', prompt: 'Notes' }),
        });
        expect(created.status).to.equal(201);

        redis.freeze();
        // Each of these would wait for as long as Redis stays frozen without a deadline of Dossier's own:
        // they are answered while it is still stopped.
        await expectStoreUnavailable(server, key);
        const again = await server.get('/api/v1/documents', key);
        expect(again.status, 'a second call does not queue behind the first').to.equal(503);

        redis.thaw();
        await until(
          async () => (await server.get('/api/v1/documents', key)).status === 200,
          'the key written before the freeze worked again',
        );
        const listed = await (await server.get('/api/v1/documents', key)).json();
        expect(listed.data.map((document: { name: string }) => document.name)).to.deep.equal(['Kept']);
      } finally {
        await server.close();
      }
    });

    it('skips a frozen Redis cache and answers lookups without it', async () => {
      const dns = await startDnsServer({
        'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] },
        'other.example.test': { A: [{ address: '93.184.216.35', ttl: 600 }] },
      });
      const server = await startTestServer({ cache: redis.url, dnsServers: [dns.address], storeTimeoutMs: OUTAGE_DEADLINE_MS });
      try {
        const key = await server.key();
        expect((await (await server.get('/api/dns?domain=example.test', key)).json()).cached).to.equal(false);
        redis.freeze();
        const other = await server.get('/api/dns?domain=other.example.test', key);
        expect(other.status).to.equal(200);
        expect(await other.json()).to.deep.include({ status: 'success', cached: false });
        redis.thaw();
      } finally {
        await server.close();
        await dns.close();
      }
    });
  });

  describe(`a MariaDB store that goes down, stops answering, and comes back${hasMariadbServer ? '' : ' (skipped: no mariadbd installed)'}`, () => {
    let mariadb: TestMariadb;

    before(async function () {
      if (!hasMariadbServer) this.skip();
      mariadb = await startTestMariadb();
    });

    after(async () => {
      await mariadb?.close();
    });

    it('answers 503 at once while MariaDB is down, and works again, with everything kept, when it is back', async () => {
      const server = await startTestServer({ store: mariadb.url });
      try {
        const key = await server.key({ owner: 'kept' });
        expect(
          (
            await server.get('/api/v1/documents', key, {
              method: 'POST',
              body: new URLSearchParams({ name: 'Kept', prompt: 'p' }),
            })
          ).status,
        ).to.equal(201);

        await mariadb.stop();
        await expectStoreUnavailable(server, key);

        await mariadb.start();
        await until(async () => (await server.get('/api/v1/documents', key)).status === 200, 'the server reconnected');
        const listed = await (await server.get('/api/v1/documents', key)).json();
        expect(listed.data.map((document: { name: string }) => document.name)).to.deep.equal(['Kept']);
      } finally {
        await server.close();
      }
    });

    it('answers 503 within the store deadline while MariaDB accepts connections but never answers, then recovers with nothing lost', async () => {
      const server = await startTestServer({ store: mariadb.url, storeTimeoutMs: OUTAGE_DEADLINE_MS });
      try {
        const key = await server.key({ owner: 'frozen' });
        const created = await server.get('/api/v1/documents', key, {
          method: 'POST',
          body: new URLSearchParams({ name: 'Kept', prompt: 'Notes' }),
        });
        expect(created.status).to.equal(201);

        await mariadb.freeze();
        try {
          await expectStoreUnavailable(server, key);
          const again = await server.get('/api/v1/documents', key);
          expect(again.status, 'a second call does not queue behind the first').to.equal(503);
        } finally {
          mariadb.thaw();
        }
        await until(async () => (await server.get('/api/v1/documents', key)).status === 200, 'the store answered again');
        const listed = await (await server.get('/api/v1/documents', key)).json();
        expect(listed.data.map((document: { name: string }) => document.name)).to.deep.equal(['Kept']);
      } finally {
        await server.close();
      }
    });

    it('never commits a write it answered with a failure, though the frozen server reads it once thawed', async () => {
      const backend = createMysqlBackend({ url: mariadb.url, clock: { now: () => Date.now() }, timeoutMs: OUTAGE_DEADLINE_MS });
      const fields = { template_id: 1, prompt: 'p', creativity: 0.5, result: 'r', words: 1, favorite: false };
      const dates = { created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
      const checker = await mysql.createConnection({ uri: mariadb.url });
      try {
        const kept = await backend.documents!.create({ owner: 'thawed', name: 'Kept', ...fields, ...dates });
        expect(await backend.counters.increment('thawed')).to.equal(1);
        await mariadb.freeze();
        try {
          // Each is sent on a connection the pool holds open, and reaches the server's socket.
          const failures = await Promise.all([
            backend
              .documents!.create({ owner: 'thawed', name: 'Answered 503', ...fields, ...dates })
              .catch((error: unknown) => error),
            backend
              .documents!.update('thawed', kept.id, { name: 'Renamed', updated_at: dates.updated_at })
              .catch((error: unknown) => error),
            backend.counters.increment('thawed').catch((error: unknown) => error),
          ]);
          for (const failure of failures) expect(failure).to.have.property('code', 'ERR_STORE_UNAVAILABLE');
        } finally {
          mariadb.thaw();
        }
        await backend.close();
        // Once every other session of the server has ended, whatever it received while frozen has run.
        await until(async () => {
          const [sessions] = (await checker.query(
            "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND command <> 'Daemon'",
          )) as [{ n: number }[], unknown];
          return Number(sessions[0]!.n) === 0;
        }, 'the sessions of the frozen calls ended');
        const [rows] = (await checker.query("SELECT name FROM dossier_documents WHERE owner = 'thawed'")) as [
          { name: string }[],
          unknown,
        ];
        expect(rows.map((row) => row.name)).to.deep.equal(['Kept']);
        const [counters] = (await checker.query("SELECT value FROM dossier_counters WHERE name = 'thawed'")) as [
          { value: number }[],
          unknown,
        ];
        expect(counters[0]!.value).to.equal(1);
      } finally {
        await checker.end();
        await backend.close();
      }
    });
  });

  for (const store of SQL_STORES) {
    describe(`a ${store.name} store whose rows another session keeps locked${store.url ? '' : ` (skipped: set ${store.variable.split('=')[0]} to run it)`}`, () => {
      before(function () {
        if (!store.url) {
          console.log(`    (set ${store.variable} to run the ${store.name} lock tests)`);
          this.skip();
        }
      });

      it('answers 503 within the store deadline while the quota row is locked, then counts again once it is free', async () => {
        const dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
        const server = await startTestServer({ store: store.url, dnsServers: [dns.address], storeTimeoutMs: OUTAGE_DEADLINE_MS });
        const locker = await store.locker(store.url!);
        try {
          const { key, secret } = await server.dossier.keys.create({ name: 'locked', dailyLimit: 10 });
          const first = await server.get('/api/dns?domain=example.test', secret);
          expect(first.status).to.equal(200);
          expect(first.headers.get('X-RateLimit-Remaining')).to.equal('9');

          expect(await locker.lock(`quota:${key.id}:%`)).to.equal(1);
          // Without a deadline, these would wait for the lock for as long as the other session holds it; and
          // they are more than the pool's 10 connections, so a pool that kept the stuck ones would drain.
          const waiting = await Promise.all(Array.from({ length: 12 }, () => server.get('/api/dns?domain=example.test', secret)));
          for (const answer of waiting) {
            expect(answer.status).to.equal(503);
            expect(await answer.json()).to.deep.include({ code: 'service_unavailable' });
          }
          await locker.commit();

          const after = await server.get('/api/dns?domain=example.test', secret);
          expect(after.status).to.equal(200);
          expect(after.headers.get('X-RateLimit-Remaining'), 'the refused requests did not count').to.equal('8');
        } finally {
          await locker.end();
          await server.close();
          await dns.close();
        }
      });

      it(`never counts a call it answered 503, even when its statement reached the server late and so would the ${store.stopped}`, async () => {
        // Once the link is slowed, every message to the server arrives 300 ms late: the statement reaches the
        // row lock when the caller's deadline has nearly passed, the server's own deadline (counted from
        // when the statement arrives) fires 300 ms after the caller's, and the cancel or kill sent at the
        // deadline, on a new connection, arrives later still. Before, on PostgreSQL, the caller was answered
        // 100 ms after its deadline, and the statement, still queued behind the row lock, committed once it went.
        const target = new URL(store.url!);
        const link = await startSlowLink({ host: target.hostname, port: Number(target.port || store.port) });
        const slowUrl = new URL(store.url!);
        slowUrl.host = `127.0.0.1:${link.port}`;
        const clock = { now: () => Date.now() };
        const direct = store.open({ url: store.url!, clock });
        const slow = store.open({ url: slowUrl.href, clock, timeoutMs: 600 });
        const locker = await store.locker(store.url!);
        const name = `late-${Math.random().toString(36).slice(2)}`;
        try {
          expect(await direct.counters.increment(name)).to.equal(1);
          expect(await slow.counters.get(name), 'the link works').to.equal(1);
          link.delayMs = 300;
          expect(await locker.lock(name)).to.equal(1);
          let failure: unknown;
          await slow.counters.increment(name).catch((error: unknown) => (failure = error));
          expect(failure).to.have.property('code', 'ERR_STORE_UNAVAILABLE');
          await locker.commit();
          // A statement still queued behind the lock would take it now, before this read (the queue's order).
          expect(await locker.valueOf(name), 'the call answered 503 did not count').to.equal(1);
          // Nor later: once the server has ended every statement that names the counter, it is still 1.
          await until(async () => (await locker.running(name)) === 0, 'the server ended the statement of the late call');
          expect(await direct.counters.get(name)).to.equal(1);
        } finally {
          await locker.end();
          await slow.close();
          await direct.close();
          await link.close();
        }
      });
    });
  }
});
