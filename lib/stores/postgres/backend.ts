import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Keyv from 'keyv';
import type pg from 'pg';
import type { Clock } from '../../ports/clock.js';
import { PostgresAdmissionStore } from './admission.js';
import { POSTGRES_DIALECT, SqlCounterStore, type SqlQuery } from '../sql/counters.js';
import { StoreGuard } from '../shared/guard.js';
import { PostgresKeyvStore } from './keyv-store.js';
import { deserialize, serialize } from '../shared/serialize.js';
import type { Backend } from '../../ports/backend.js';
import { assembleBackend } from '../shared/assemble.js';
import { loadOptionalPeer } from '../shared/optional-peer.js';

/** How long a late statement's caller waits for its cancel to reach the server, at most. */
const CANCEL_WAIT_MS = 100;

/** Settings of {@link createPostgresBackend}. */
export interface PostgresOptions {
  /** `postgres://…` or `postgresql://…`. */
  url: string;
  /** Keeps this backend's keys apart from others in the same database. @default 'dossier' */
  namespace?: string;
  /** Time source of counter and lease expiry. @default Date.now */
  clock?: Clock;
  /**
   * The deadline of one call, waiting for a connection included, in milliseconds. The server cancels a
   * statement that runs longer (`statement_timeout`: a wait on another session's row lock counts), and
   * a connection whose answer is late is discarded from the pool. @default 2000
   */
  timeoutMs?: number;
  /** Connections in the pool. @default 10 */
  poolSize?: number;
}

/**
 * The PostgreSQL driver, `pg`: an optional peer dependency.
 * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when it is not installed.
 */
export function loadPostgresDriver(): typeof pg {
  return loadOptionalPeer<typeof pg>('pg', 'A postgres:// store');
}

/**
 * A PostgreSQL database (`postgres://…`): values in the `keyv` table, counters and leases in their own
 * tables, on one pool that this backend owns. Every statement is prepared once per connection (by
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
  // The statements hold their own deadline (and cancel what is late); the guard is the backstop.
  const guard = new StoreGuard({ timeoutMs: timeoutMs + CANCEL_WAIT_MS + 50 });
  const query = preparedQuery(pool, { timeoutMs, cancel: (pid) => cancels.query('SELECT pg_cancel_backend($1)', [pid]) });
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> =>
    (ended ??= Promise.all([pool.end(), cancels.end()]).then(
      () => {},
      () => {},
    ));
  const clock = options.clock ?? { now: () => Date.now() };
  const namespace = options.namespace ?? 'dossier';
  const counters = new SqlCounterStore(query, POSTGRES_DIALECT, clock, guard);
  const keyv = new Keyv({ store: new PostgresKeyvStore(query, end), namespace, serialize, deserialize });
  const admissions = new PostgresAdmissionStore(query, counters, guard, namespace, clock);
  return assembleBackend({ keyv, counters, clock, guard, admissions, release: end });
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
 * cancelled on the server and its connection discarded, so that neither the caller nor the pool waits
 * for a lock another session holds.
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
    const config = /^\s*CREATE\b/i.test(text) ? { text, values } : { name, text, values };
    const started = performance.now();
    const client = await pool.connect();
    const remaining = timeoutMs === undefined ? Infinity : timeoutMs - (performance.now() - started);
    if (remaining <= 0) {
      client.release();
      throw new Error(`No connection was free within ${timeoutMs} ms.`);
    }
    let timer: NodeJS.Timeout | undefined;
    const running = client.query(config);
    try {
      const result =
        remaining === Infinity
          ? await running
          : await Promise.race([
              running,
              new Promise<never>((_, reject) => {
                timer = setTimeout(() => {
                  running.catch(() => {}); // it fails once cancelled; nobody waits for it any more
                  const pid = (client as unknown as { processID?: number }).processID;
                  const late = new Error(`The statement did not finish within ${timeoutMs} ms.`);
                  // The caller hears of it once the cancel has reached the server (or after 100 ms at most),
                  // so that what it does next cannot overtake the statement it was told failed.
                  const cancelled = pid === undefined || cancel === undefined ? Promise.resolve() : cancel(pid).catch(() => {});
                  void Promise.race([cancelled, sleep(CANCEL_WAIT_MS)]).then(() => reject(late));
                }, remaining);
              }),
            ]);
      client.release();
      return result.rows as unknown[];
    } catch (error) {
      // Any failure discards the connection: it may still be busy with what failed.
      client.release(error instanceof Error ? error : true);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}
