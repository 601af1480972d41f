import { createHash } from 'node:crypto';
import Keyv from 'keyv';
import type pg from 'pg';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { PostgresAdmissionStore } from './admission.js';
import { POSTGRES_DIALECT, SqlCounterStore, type SqlQuery } from '../sql/counters.js';
import { StoreGuard } from '../shared/guard.js';
import { PostgresDocumentStore } from './documents.js';
import { PostgresKeyvStore } from './keyv-store.js';
import { CREATE_TRIGRAMS, TRIGRAM_SCHEMA } from './trigrams.js';
import { deserialize, serialize } from '../shared/serialize.js';
import type { Backend } from '../../ports/backend.js';
import { assembleBackend } from '../shared/assemble.js';
import { loadOptionalPeer } from '../shared/optional-peer.js';
import { SqlWatchStore, watchSchema, type WatchDialect, type WatchTables } from '../sql/watches.js';
import type { SqlWork } from '../sql/work.js';
import { keySchema, SqlKeyRecords, type KeyDialect } from '../sql/keys.js';
import { likeLiteral } from '../sql/documents.js';
import { sessionSchema, SqlSessionStore } from '../sql/sessions.js';
import { createTable } from '../sql/counters.js';

/** How PostgreSQL writes what the tables of watches need. */
const POSTGRES_WATCHES: WatchDialect = {
  ...POSTGRES_DIALECT,
  schema: watchSchema({ seq: 'BIGSERIAL PRIMARY KEY', id: 'TEXT', name: 'TEXT', text: 'TEXT', count: 'BIGINT' }, false, ''),
  insertIgnore: { start: 'INSERT INTO', end: ' ON CONFLICT DO NOTHING' },
  forUpdate: ' FOR UPDATE',
  keyvKey: 'key',
};

/** How PostgreSQL writes what the tables of keys need. */
const POSTGRES_KEYS: KeyDialect = {
  ...POSTGRES_WATCHES,
  schema: [
    ...keySchema(
      { seq: 'BIGSERIAL PRIMARY KEY', id: 'TEXT', name: 'TEXT', short: 'TEXT', searched: 'TEXT', text: 'TEXT', count: 'BIGINT' },
      false,
      '',
    ),
    // pg_trgm's index of the searched text, when the extension is there or can be made (as the documents').
    `DO $keys$
    DECLARE trigrams text;
    BEGIN
      ${CREATE_TRIGRAMS}
      SELECT schema INTO trigrams FROM (${TRIGRAM_SCHEMA}) t;
      IF trigrams IS NOT NULL THEN
        EXECUTE format('CREATE INDEX IF NOT EXISTS dossier_keys_searched ON dossier_keys USING gin (search %I.gin_trgm_ops)', trigrams);
      END IF;
    END
    $keys$`,
    ...sessionSchema({ id: 'TEXT', text: 'TEXT', count: 'BIGINT' }, false, ''),
  ],
  contains: 'strpos',
  // `LIKE`, which pg_trgm's index answers (without it, a scan of the rows: right all the same).
  searched: (needle) => ({ sql: 'search LIKE ?', values: [`%${likeLiteral(needle)}%`] }),
};

/**
 * How long past the statement's own deadline (which the server enforces too, as `statement_timeout`) a
 * late statement's caller waits for the server to say how it ended, before giving up on the connection.
 */
const SETTLE_MARGIN_MS = 500;

/**
 * Makes the table of leases unlogged, once a database (a table already unlogged is left alone, so that a
 * start takes no lock on it). A lease need not outlive the database server: after a crash every holder's
 * connection is gone with it, and a table found empty frees every lease, which a holder of one that lost
 * its renewals already expects (it frees nothing of another's). What that buys: a change of an unlogged
 * table writes no WAL, so its commit does not wait for a flush, and a check takes, renews and gives back
 * its watch's lease without one (three or more flushes a check, at 167 checks a second).
 */
const UNLOGGED_LEASES = `DO $leases$
BEGIN
  IF (SELECT relpersistence FROM pg_class WHERE oid = 'dossier_leases'::regclass) = 'p' THEN
    ALTER TABLE dossier_leases SET UNLOGGED;
  END IF;
END
$leases$`;

/** Settings of {@link createPostgresBackend}. */
export interface PostgresOptions {
  /** `postgres://…` or `postgresql://…`. */
  url: string;
  /** Keeps this backend's keys apart from others in the same database. @default 'dossier' */
  namespace?: string;
  /** Time source of counter and lease expiry. @default Date.now */
  clock?: Clock;
  /**
   * The deadline of one call, waiting for a connection included, in milliseconds. A statement still
   * running then is cancelled on the server (which also gives up by itself after as long:
   * `statement_timeout`, a wait on another session's row lock included), and its caller is answered once
   * the server has said how it ended, so that a call answered with a failure never commits later. A
   * server that says nothing within this time again (frozen, gone) fails the call then. @default 2000
   */
  timeoutMs?: number;
  /** Connections in the pool. @default 10 */
  poolSize?: number;
  /** Where the backend says what it could not do (no pg_trgm, documents it could not move). @default nothing */
  logger?: Logger;
}

/**
 * The PostgreSQL driver, `pg`: an optional peer dependency.
 * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when it is not installed.
 */
export function loadPostgresDriver(): typeof pg {
  return loadOptionalPeer<typeof pg>('pg', 'A postgres:// store');
}

/**
 * A PostgreSQL database (`postgres://…`): values in the `keyv` table, counters, leases and documents in
 * their own tables, on one pool that this backend owns. Every statement is prepared once per connection (by
 * name) and held to the deadline, by the server and by the client.
 */
export function createPostgresBackend(options: PostgresOptions): Backend {
  const { Pool } = loadPostgresDriver();
  const timeoutMs = options.timeoutMs ?? 2000;
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeoutMs,
    // Server side, as a last resort: a statement is cancelled, its lock waits included.
    statement_timeout: timeoutMs,
  });
  // Cancels go on connections of their own: the pool's may all be stuck behind the statements to cancel.
  const cancels = new Pool({
    connectionString: options.url,
    max: 2,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 5000,
  });
  // An idle connection that breaks is dropped by the pool; without a listener, it would crash the process.
  pool.on('error', () => {});
  cancels.on('error', () => {});
  // The statements hold their own deadline: a guard's deadline would answer a caller before the server
  // has said whether the late statement committed.
  const guard = new StoreGuard();
  const query = preparedQuery(pool, { timeoutMs, cancel: (pid) => cancels.query('SELECT pg_cancel_backend($1)', [pid]) });
  const maintenance = maintenanceQuery(options.url);
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> =>
    (ended ??= Promise.all([pool.end(), cancels.end(), maintenance.end()]).then(
      () => {},
      () => {},
    ));
  const clock = options.clock ?? { now: () => Date.now() };
  const namespace = options.namespace ?? 'dossier';
  const counters = new SqlCounterStore(query, POSTGRES_DIALECT, clock, guard);
  let unlogged: Promise<void> | undefined;
  /** {@link UNLOGGED_LEASES}, once a process; one that fails (the table another role's) leaves them as they are. */
  const unlogLeases = (): Promise<void> =>
    (unlogged ??= query(UNLOGGED_LEASES, []).then(
      () => {},
      (error: unknown) =>
        options.logger?.warn('The leases could not be made unlogged; they work all the same.', { message: String(error) }),
    ));
  const keyv = new Keyv({ store: new PostgresKeyvStore(query, end), namespace, serialize, deserialize });
  const documents = new PostgresDocumentStore(query, counters, {
    namespace,
    maintain: maintenance.query,
    logger: options.logger,
  });
  const tables: Omit<WatchTables, 'dialect'> = {
    namespace,
    logger: options.logger,
    prepare: () =>
      Promise.all([
        counters.tablesExist().then(unlogLeases),
        createTable(query, 'keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)'),
      ]),
    read: async (sql, values) => (await query(sql, values)) as Record<string, unknown>[],
    write: async (sql, values) => void (await query(sql, values)),
    ddl: async (sql) => {
      const table = /^CREATE TABLE IF NOT EXISTS ([\s\S]*)$/.exec(sql)?.[1];
      if (table !== undefined) return createTable(query, table);
      // An index two sessions create at once: one loses the race on the catalog; it exists all the same.
      await query(sql, []).catch((error: unknown) => {
        if ((error as { code?: string }).code !== '23505') throw error;
      });
    },
    transaction: (work) => pooledTransaction(pool, work, timeoutMs),
  };
  const watches = new SqlWatchStore({ ...tables, dialect: POSTGRES_WATCHES });
  const keys = new SqlKeyRecords({ ...tables, dialect: POSTGRES_KEYS });
  const sessions = new SqlSessionStore({ ...tables, dialect: POSTGRES_KEYS }, keys, clock);
  const admissions = new PostgresAdmissionStore(query, counters, keys, guard, clock);
  return assembleBackend({ keyv, counters, clock, guard, admissions, documents, watches, keys, sessions, release: end });
}

/**
 * Runs `work`'s statements in one transaction on one connection of `pool`. Each statement is held to the
 * deadline by the server (`statement_timeout`); the transaction as a whole by this process too: past
 * twice the deadline its connection is dropped, and the server rolls back what was not committed. A
 * transaction that lost a deadlock (40P01), rolled back by the server, is run again while time remains.
 * @throws the driver's error; nothing is committed then.
 */
async function pooledTransaction<T>(pool: pg.Pool, work: () => SqlWork<T>, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs * 2;
  for (;;) {
    const client = await pool.connect();
    let dropped = false;
    const timer = setTimeout(
      () => {
        dropped = true;
        client.release(new Error(`The transaction did not end within ${timeoutMs * 2} ms.`));
      },
      Math.max(1, deadline - performance.now()),
    );
    try {
      await client.query('BEGIN');
      const steps = work();
      let next = steps.next(undefined as never);
      while (next.done !== true) {
        const result = await client.query(next.value.sql, next.value.values);
        next = steps.next({ rows: result.rows as Record<string, unknown>[], changes: result.rowCount ?? 0 });
      }
      await client.query('COMMIT');
      return next.value;
    } catch (error) {
      if (!dropped) await client.query('ROLLBACK').catch(() => {});
      if ((error as { code?: string }).code !== '40P01' || performance.now() >= deadline) throw error;
    } finally {
      clearTimeout(timer);
      if (!dropped) client.release();
    }
  }
}

/**
 * Statements with no deadline, each on a connection of its own, for work that may take long and runs in
 * the background (building an index on a table with rows): ending it closes those connections, and the
 * server stops what they were doing.
 */
function maintenanceQuery(url: string): { query: SqlQuery; end(): Promise<void> } {
  const { Client } = loadPostgresDriver();
  const open = new Set<pg.Client>();
  let ended = false;
  return {
    async query(sql, values) {
      if (ended) throw new Error('The store is closed.');
      const client = new Client({ connectionString: url });
      client.on('error', () => {});
      open.add(client);
      try {
        await client.connect();
        return (await client.query(sql, values)).rows as unknown[];
      } finally {
        open.delete(client);
        await client.end().catch(() => {});
      }
    },
    async end() {
      ended = true;
      await Promise.all([...open].map((client) => client.end().catch(() => {})));
    },
  };
}

/** How {@link preparedQuery} holds statements to their deadline. */
export interface PreparedQueryOptions {
  /** The deadline of one statement, waiting for a connection included, in milliseconds. @default none */
  timeoutMs?: number;
  /** Cancels the statement running on the server process `pid` (`pg_cancel_backend`). @default none */
  cancel?: (pid: number) => Promise<unknown>;
}

/**
 * Runs statements on `pool` as named prepared statements: parsed and planned once per connection. With
 * a deadline, a statement is never sent once its deadline has passed (a caller answered 503 while it
 * waited for a connection must not have it run later), and one still running at the deadline is
 * cancelled on the server; its caller hears how it ended, not merely that it was late (see
 * {@link settle}), and a connection that failed anything is discarded from the pool.
 */
export function preparedQuery(pool: pg.Pool, { timeoutMs, cancel }: PreparedQueryOptions = {}): SqlQuery {
  const names = new Map<string, string>();
  return async (text, values) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `dossier_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
      names.set(text, name);
    }
    // DDL cannot be prepared; it runs once, so it goes as it is.
    const config = /^\s*(CREATE|DO)\b/i.test(text) ? { text, values } : { name, text, values };
    const started = performance.now();
    const client = await pool.connect();
    const remaining = timeoutMs === undefined ? Infinity : timeoutMs - (performance.now() - started);
    if (remaining <= 0) {
      client.release();
      throw new Error(`No connection was free within ${timeoutMs} ms.`);
    }
    try {
      const running = client.query(config);
      const result = timeoutMs === undefined ? await running : await settle(running, client, remaining, timeoutMs, cancel);
      client.release();
      return result.rows as unknown[];
    } catch (error) {
      // Any failure discards the connection: it may still be busy with what failed.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  };
}

const LATE = Symbol('late');

/** `work`, or {@link LATE} when it has not settled within `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<typeof LATE>((resolve) => (timer = setTimeout(resolve, ms, LATE)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The result of a statement that has `remaining` ms left. Past that, it is cancelled on the server
 * (`cancel`, on a connection of its own), and the caller waits for the statement's own end: cancelled,
 * stopped by the server's `statement_timeout`, or finished after all (then its result is the answer: it
 * committed). Answering "failed" before that end would let a statement queued behind a row lock commit
 * once the lock goes, after its caller was told it did not count. A server that says nothing within
 * `timeoutMs` + {@link SETTLE_MARGIN_MS} more is taken for gone.
 */
async function settle(
  running: Promise<pg.QueryResult>,
  client: pg.PoolClient,
  remaining: number,
  timeoutMs: number,
  cancel: PreparedQueryOptions['cancel'],
): Promise<pg.QueryResult> {
  const first = await within(running, remaining);
  if (first !== LATE) return first;
  const pid = (client as unknown as { processID?: number }).processID;
  if (pid !== undefined && cancel !== undefined) cancel(pid).catch(() => {});
  const end = await within(
    running.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    ),
    timeoutMs + SETTLE_MARGIN_MS,
  );
  if (end === LATE) {
    running.catch(() => {}); // the connection is discarded; nobody waits for it any more
    throw new Error(`PostgreSQL did not say within ${timeoutMs + SETTLE_MARGIN_MS} ms how a late statement ended.`);
  }
  if ('error' in end) throw new Error(`The statement did not finish within ${timeoutMs} ms.`, { cause: end.error });
  return end.result;
}
