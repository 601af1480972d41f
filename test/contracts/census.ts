import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from '@keyv/redis';
import type { CounterStore } from '../../lib/ports/counter-store.js';
import type { KvStore } from '../../lib/ports/kv-store.js';

/**
 * How many entries a store holds: values, counters and leases, each as the backend keeps them (rows of
 * SQLite, PostgreSQL and MySQL, keys of Redis), read beside Dossier rather than through its ports, so that a
 * test sees what is really left behind. A memory:// store lives in the test's own process, where
 * nothing else can read it: its entries are those its {@link Ledger} saw written and not deleted.
 */
export async function census(url: string, ledger: Ledger): Promise<number> {
  const scheme = new URL(url).protocol;
  if (scheme === 'memory:') return ledger.size();
  if (scheme === 'sqlite:') {
    const db = new Database(url.slice('sqlite://'.length), { readonly: true });
    try {
      return (db.prepare(COUNT_ROWS).get() as { count: number }).count;
    } finally {
      db.close();
    }
  }
  if (scheme === 'postgres:' || scheme === 'postgresql:') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return Number(((await client.query(COUNT_ROWS)).rows[0] as { count: string }).count);
    } finally {
      await client.end();
    }
  }
  if (scheme === 'mysql:' || scheme === 'mariadb:') {
    const connection = await mysql.createConnection({ uri: url });
    try {
      const [rows] = (await connection.query(COUNT_ROWS)) as unknown as [{ count: number | string }[]];
      return Number(rows[0]!.count);
    } finally {
      await connection.end();
    }
  }
  const client = createClient({ url });
  await client.connect();
  try {
    return await client.dbSize();
  } finally {
    await client.quit();
  }
}

/**
 * The rows of the values, counters and leases of a SQL store, and of its watches when it has their
 * tables (a key's count of watches at 0 is no entry: it stays until the key is revoked).
 */
const COUNT_ROWS =
  'SELECT (SELECT count(*) FROM keyv) + (SELECT count(*) FROM dossier_counters) + (SELECT count(*) FROM dossier_leases)' +
  ' + (SELECT count(*) FROM dossier_watches) + (SELECT count(*) FROM dossier_watch_deliveries)' +
  ' + (SELECT count(*) FROM dossier_watch_unscheduled) + (SELECT count(*) FROM dossier_watch_keys WHERE watches > 0) AS count';

/** The ports of a store, and what they hold by what was written through them: values, counters, leases. */
export interface Ledger {
  kv: KvStore;
  counters: CounterStore;
  /** The values set and not deleted, the counters ever counted, the leases taken and not given back. */
  size(): number;
}

/** Wraps a store's ports so as to keep the {@link Ledger} of what is written through them. */
export function ledger(kv: KvStore, counters: CounterStore): Ledger {
  const values = new Set<string>();
  const counted = new Set<string>();
  const leases = new Map<string, string>();
  const watchedKv: KvStore = Object.create(kv, {
    set: { value: (key: string, value: unknown, ttlMs?: number) => kv.set(key, value, ttlMs).then(() => void values.add(key)) },
    delete: { value: (key: string) => kv.delete(key).finally(() => values.delete(key)) },
  }) as KvStore;
  const watchedCounters: CounterStore = Object.create(counters, {
    increment: {
      value: (name: string, options?: Parameters<CounterStore['increment']>[1]) =>
        counters.increment(name, options).then((value) => (counted.add(name), value)),
    },
    acquireLease: {
      value: (name: string, owner: string, ttlMs: number) =>
        counters.acquireLease(name, owner, ttlMs).then((taken) => (taken && leases.set(name, owner), taken)),
    },
    releaseLease: {
      value: (name: string, owner: string) =>
        counters.releaseLease(name, owner).then(() => void (leases.get(name) === owner && leases.delete(name))),
    },
  }) as CounterStore;
  return { kv: watchedKv, counters: watchedCounters, size: () => values.size + counted.size + leases.size };
}
