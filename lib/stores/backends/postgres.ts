import { createHash } from 'node:crypto';
import Keyv from 'keyv';
import pg from 'pg';
import type { Clock } from '../../ports/clock.js';
import { PostgresAdmissionStore } from '../admission/postgres.js';
import { SqlCounterStore, type SqlQuery } from '../counters/sql.js';
import { StoreGuard } from '../guard.js';
import { PostgresKeyvStore } from '../keyv/postgres-store.js';
import { assembleBackend, type Backend } from './assemble.js';

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
 * A PostgreSQL database (`postgres://…`): values in the `keyv` table, counters and leases in their own
 * tables, on one pool that this backend owns. Every statement is prepared once per connection (by
 * name) and held to the deadline, by the server and by the client.
 */
export function createPostgresBackend(options: PostgresOptions): Backend {
  const timeoutMs = options.timeoutMs ?? 2000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeoutMs,
    // Client side: a late answer fails the query, and the pool discards its connection (any error does).
    query_timeout: timeoutMs,
    // Server side: the statement is cancelled, its locks waits included, so nothing stays stuck there.
    statement_timeout: timeoutMs,
  });
  // An idle connection that breaks is dropped by the pool; without a listener, it would crash the process.
  pool.on('error', () => {});
  const guard = new StoreGuard({ timeoutMs });
  const query = preparedQuery(pool);
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> => (ended ??= pool.end().catch(() => {}));
  const clock = options.clock ?? { now: () => Date.now() };
  const namespace = options.namespace ?? 'dossier';
  const counters = new SqlCounterStore(query, (n) => `$${n}`, clock, guard);
  const keyv = new Keyv({ store: new PostgresKeyvStore(query, end), namespace });
  const admissions = new PostgresAdmissionStore(query, counters, guard, namespace, clock);
  return assembleBackend({ keyv, counters, clock, guard, admissions, release: end });
}

/** Runs statements on `pool` as named prepared statements: parsed and planned once per connection. */
export function preparedQuery(pool: pg.Pool): SqlQuery {
  const names = new Map<string, string>();
  return async (text, values) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `dossier_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
      names.set(text, name);
    }
    // DDL cannot be prepared; it runs once, so it goes as it is.
    const result = /^\s*CREATE\b/i.test(text) ? await pool.query(text, values) : await pool.query({ name, text, values });
    return result.rows as unknown[];
  };
}
