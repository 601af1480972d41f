import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { openBackend } from '../../../lib/stores/open-backend.js';
import { SqliteConnection } from '../../../lib/stores/sqlite/connection.js';

describe('openBackend (memory)', () => {
  const clock = { now: () => Date.now() };

  it('keeps at most about memoryLimit values when bounded, dropping the least recently used', async () => {
    const backend = openBackend('memory://', { namespace: 'cache', clock, memoryLimit: 2 });
    try {
      for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) await backend.kv.set(key, { key });
      // quick-lru keeps between maxSize and twice maxSize values.
      const kept = (await backend.kv.getMany<{ key: string }>(['a', 'b', 'c', 'd', 'e', 'f'])).filter(Boolean);
      expect(kept.length).to.be.within(2, 4);
      expect(await backend.kv.get('a')).to.equal(undefined);
      expect(await backend.kv.get('f')).to.deep.equal({ key: 'f' });
    } finally {
      await backend.close();
    }
  });

  it('keeps everything when unbounded (keys and documents must never be dropped)', async () => {
    const backend = openBackend('memory://', { namespace: 'store', clock });
    try {
      for (let i = 0; i < 50; i += 1) await backend.kv.set(`k${i}`, i);
      expect(await backend.kv.get('k0')).to.equal(0);
    } finally {
      await backend.close();
    }
  });

  it('hands out frozen copies, so that no reader can change what is stored', async () => {
    const backend = openBackend('memory://', { namespace: 'store', clock });
    try {
      const value = { list: [1, 2] };
      await backend.kv.set('v', value);
      value.list.push(3);
      const read = await backend.kv.get<{ list: number[] }>('v');
      expect(read).to.deep.equal({ list: [1, 2] });
      expect(() => read!.list.push(4)).to.throw(TypeError);
    } finally {
      await backend.close();
    }
  });
});

const require = createRequire(import.meta.url);

describe('openBackend (sqlite)', () => {
  const clock = { now: () => Date.now() };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-backend-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('switches a new store to WAL even while another process is writing to it', async () => {
    const path = join(dir, 'store.sqlite');
    // Two servers open a new store together: the other one is writing while the file is still in
    // rollback mode. Switching it to WAL then answers SQLITE_BUSY at once, past the busy timeout.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
         const db = new Database(process.argv[1]);
         db.exec('CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
         db.exec("BEGIN IMMEDIATE; INSERT INTO keyv VALUES ('k', 'v')");
         console.log('locked');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 150);`,
        path,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(writer.stdout!, 'data');
    const backend = openBackend(`sqlite://${path}`, { namespace: 'store', clock });
    try {
      expect(await backend.counters.increment('c')).to.equal(1);
      expect(await backend.kv.get('k')).to.equal(undefined);
      const check = new Database(path);
      expect(check.pragma('journal_mode', { simple: true })).to.equal('wal');
      check.close();
    } finally {
      await backend.close();
      if (writer.exitCode === null) await once(writer, 'exit');
    }
  });

  it('answers ERR_STORE_UNAVAILABLE within its deadline while another process holds the write lock, then works again', async () => {
    const path = join(dir, 'store.sqlite');
    const backend = openBackend(`sqlite://${path}`, { namespace: 'store', clock, timeoutMs: 100 });
    const other = new Database(path);
    try {
      await backend.kv.set('before', 1);
      other.exec('BEGIN IMMEDIATE');
      const refused = await backend.kv.set('during', 2).then(
        () => 'written',
        (error: { code?: string }) => error.code,
      );
      expect(refused).to.equal('ERR_STORE_UNAVAILABLE');
      other.exec('COMMIT');
      await backend.kv.set('after', 3);
      expect(await backend.kv.getMany(['before', 'during', 'after'])).to.deep.equal([1, undefined, 3]);
    } finally {
      await backend.close();
      other.close();
    }
  });
});

describe('SQLite files that @keyv/sqlite wrote, and group commits', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-sqlite-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the keyv table as @keyv/sqlite left it, escaped values included', async () => {
    const path = join(dir, 'old.sqlite');
    const old = new Database(path);
    old.exec('CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
    // @keyv/sqlite's rows: Keyv's serializer, which writes a string starting with ":" with one more ":".
    old.prepare('INSERT INTO keyv VALUES (?, ?)').run('store:note', '{"value":{"text":"::kept","n":1},"expires":null}');
    old.close();
    const backend = openBackend(`sqlite://${path}`, { namespace: 'store', clock: { now: () => Date.now() } });
    try {
      expect(await backend.kv.get('note')).to.deep.equal({ text: ':kept', n: 1 });
    } finally {
      await backend.close();
    }
  });

  it('commits the writes of one turn together, failing only the statement that fails', async () => {
    const connection = new SqliteConnection({ path: join(dir, 'group.sqlite') });
    try {
      await connection.write((db) => db.exec('CREATE TABLE t (v INTEGER PRIMARY KEY)'));
      const insert = (v: number) => connection.write((db) => db.prepare('INSERT INTO t VALUES (?)').run(v).changes);
      const outcomes = await Promise.allSettled([insert(1), insert(1), insert(2)]);
      expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
      const rows = await connection.run((db) => db.prepare('SELECT v FROM t ORDER BY v').all());
      expect(rows).to.deep.equal([{ v: 1 }, { v: 2 }]);
    } finally {
      connection.close();
    }
  });

  it('reads one turn in one snapshot, sees another process commit from the next turn, and writes after it', async () => {
    const path = join(dir, 'snapshot.sqlite');
    const connection = new SqliteConnection({ path });
    const other = new Database(path, { timeout: 2000 });
    try {
      await connection.write((db) => db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER); INSERT INTO t VALUES ('a', 1)"));
      const read = () => connection.run((db) => (db.prepare('SELECT v FROM t WHERE k = ?').get('a') as { v: number }).v);
      // In one turn: a read, another connection's commit, a second read; then a write of this turn.
      const first = read();
      other.prepare('UPDATE t SET v = 2 WHERE k = ?').run('a');
      const second = read();
      const written = connection.write((db) => db.prepare('UPDATE t SET v = v + 10 WHERE k = ?').run('a').changes);
      expect([await first, await second, await written]).to.deep.equal([1, 1, 1]);
      expect(await read()).to.equal(12);
      // An admission-like write transaction of its own, asked right after a read of the same turn.
      const before = read();
      const alone = connection.runAlone((db) =>
        db.transaction(() => db.prepare('UPDATE t SET v = v + 1').run().changes).immediate(),
      );
      expect([await before, alone]).to.deep.equal([12, 1]);
      expect(other.prepare('SELECT v FROM t').pluck().get()).to.equal(13);
    } finally {
      connection.close();
      other.close();
    }
  });
});
