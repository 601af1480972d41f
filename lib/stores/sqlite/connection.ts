import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';

/** How much of a database file a connection maps into memory, at most (1 GiB: SQLite maps what the file holds). */
const MMAP_BYTES = 2 ** 30;

/** How {@link openSqlite} opens a database file. */
export interface OpenSqliteOptions {
  /** Path of the database file; its folder is created when missing. */
  path: string;
  /**
   * How long a statement waits for another connection's lock before failing with SQLITE_BUSY, in
   * milliseconds; also how long opening keeps retrying the switch to WAL. @default 2000
   */
  busyTimeoutMs?: number;
}

/**
 * Opens a SQLite file with better-sqlite3 (synchronous: a statement runs on the calling thread, with no
 * hop to a thread pool and back) in WAL mode, which lets readers and a writer share the file across
 * processes, with `synchronous = NORMAL`, which skips an fsync per commit.
 *
 * Switching a new file to WAL needs an exclusive lock and answers SQLITE_BUSY at once, without SQLite's
 * busy handler, while another connection holds any lock (two processes opening a new store together):
 * so the switch is retried here, asynchronously, until the busy timeout.
 */
export async function openSqlite({ path, busyTimeoutMs = 2000 }: OpenSqliteOptions): Promise<Database.Database> {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch {
    // Opening the file below fails too, and that failure is what the caller reports.
  }
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    // No clock is read: the retries give up once their pauses add up to the busy timeout.
    let waited = 0;
    for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
      let busy: unknown;
      try {
        // Refused under a lock, the switch may also answer the mode the file keeps instead of failing.
        if (db.pragma('journal_mode = WAL', { simple: true }) === 'wal') break;
        busy = new Error('The SQLite file stayed locked while switching it to WAL.');
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
        busy = error;
      }
      if (waited + wait > busyTimeoutMs) throw busy;
      await sleep(wait);
      waited += wait;
    }
    db.pragma('synchronous = NORMAL');
    // Reads the file's pages where the OS keeps them rather than copying each into the connection's page
    // cache (2 MB): a search that checks thousands of rows costs half as much (docs/storage.md).
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A statement cache for one connection: each SQL text is prepared once, on first use, then reused
 * (preparing is a parse and a plan, which a hot path should not pay per call).
 */
export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
}

/**
 * One SQLite connection of a backend, opened on first use. A failed open is forgotten, so that the
 * next call tries again (a folder made writable later, a lock released) instead of failing for good.
 */
export class SqliteConnection {
  private db: Database.Database | undefined;
  private opening: Promise<Database.Database> | undefined;
  private closed = false;
  private readonly setups: ((db: Database.Database) => void)[] = [];
  private writes: { use(db: Database.Database): unknown; resolve(value: unknown): void; reject(error: unknown): void }[] = [];
  /** The open read transaction of this turn's reads, if any (see {@link run}). */
  private snapshot: { begin: Database.Statement; end: Database.Statement; open: boolean } | undefined;

  constructor(private readonly options: OpenSqliteOptions) {}

  /** Runs `setup` on the connection once it is open (creating tables), before any other use. */
  onOpen(setup: (db: Database.Database) => void): void {
    this.setups.push(setup);
    if (this.db !== undefined) setup(this.db);
  }

  /**
   * Runs a read (`use`) on the open connection: synchronously once it is open (no extra tick on the hot
   * path). Reads share one read transaction until the event loop's next `setImmediate` phase (or until a
   * write): in WAL mode each transaction takes and drops the file's read locks, a system call apiece, and
   * a request that reads its key and then a document would pay for two. So a read sees the store as it
   * was at the first read of that span, at most one iteration of the loop earlier (well under a
   * millisecond under load): as if the request had come that much sooner.
   * @throws the driver's error, or the opening's.
   */
  run<T>(use: (db: Database.Database) => T): Promise<T> {
    const db = this.db;
    if (db === undefined) return this.open().then(() => this.run(use));
    try {
      this.beginSnapshot(db);
      return Promise.resolve(use(db));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs `use` now, outside the turn's read transaction: for a caller that opens a write transaction
   * of its own (`db.transaction(…).immediate()`), which must not nest in a read one.
   * @throws the driver's error.
   */
  runAlone<T>(use: (db: Database.Database) => T): T {
    this.endSnapshot();
    return use(this.db!);
  }

  private beginSnapshot(db: Database.Database): void {
    this.snapshot ??= { begin: db.prepare('BEGIN'), end: db.prepare('COMMIT'), open: false };
    if (this.snapshot.open || db.inTransaction) return;
    this.snapshot.begin.run();
    this.snapshot.open = true;
    setImmediate(() => this.endSnapshot());
  }

  private endSnapshot(): void {
    if (this.snapshot?.open !== true) return;
    this.snapshot.open = false;
    const db = this.db;
    // A failed statement may have ended it already (SQLite rolls back on some errors).
    if (db === undefined || !db.inTransaction) return;
    try {
      this.snapshot.end.run();
    } catch {
      // Ending a read transaction changes nothing stored; whatever kept it open, the next write must not
      // find it (this also runs from setImmediate, where a throw would end the process).
      try {
        db.exec('ROLLBACK');
      } catch {
        // Nothing is left to undo.
      }
    }
  }

  /**
   * Runs a write (`use`) in the next group commit: every write asked during one turn of the event loop
   * runs, in order, inside one `BEGIN IMMEDIATE` transaction, and each caller hears of its own once the
   * transaction is committed (a commit is most of the cost of a small write). A statement that fails
   * fails alone (SQLite undoes only that statement); a commit that fails fails them all.
   */
  write<T>(use: (db: Database.Database) => T): Promise<T> {
    if (this.db === undefined) return this.open().then(() => this.write(use));
    return new Promise<T>((resolve, reject) => {
      this.writes.push({ use, resolve: resolve as (value: unknown) => void, reject });
      if (this.writes.length === 1) setImmediate(() => this.commit());
    });
  }

  private commit(): void {
    const batch = this.writes;
    this.writes = [];
    const db = this.db;
    if (db === undefined) {
      for (const entry of batch) entry.reject(new Error('The SQLite connection is closed.'));
      return;
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.endSnapshot();
      db.exec('BEGIN IMMEDIATE');
      for (const entry of batch) {
        try {
          outcomes.push({ ok: true, value: entry.use(db) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // The connection undoes what it cannot commit when it closes.
        }
      }
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) entry.resolve(outcome.value);
      else entry.reject(outcome.error);
    });
  }

  /** Closes the connection; later calls fail. */
  close(): void {
    this.closed = true;
    this.endSnapshot();
    this.db?.close();
    this.db = undefined;
    this.snapshot = undefined;
  }

  private open(): Promise<Database.Database> {
    if (this.closed) return Promise.reject(new Error('The SQLite connection is closed.'));
    this.opening ??= openSqlite(this.options).then(
      (db) => {
        if (this.closed) {
          db.close();
          throw new Error('The SQLite connection is closed.');
        }
        try {
          for (const setup of this.setups) setup(db);
        } catch (error) {
          db.close();
          this.opening = undefined;
          throw error;
        }
        this.db = db;
        return db;
      },
      (error: unknown) => {
        this.opening = undefined;
        throw error;
      },
    );
    return this.opening;
  }
}
