import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from '@keyv/redis';
import { bullmqPostgresConnection, defaultJobQueuePrefix } from '../lib/watches/jobs/bullmq-jobs.js';
import { startRedis } from './processes.js';

// Fresh, empty stores for the benches of records (bench/watches.ts, bench/records-scale.ts,
// bench/keys-scale.ts), one of each kind `BENCH_STORES` names (sqlite, redis, postgres, mysql; all by
// default): a SQLite file in a directory of its own, a Redis server of its own, a PostgreSQL schema and a
// MySQL database made for it in the databases of BENCH_POSTGRES / BENCH_MYSQL (or DOSSIER_TEST_*), each
// dropped after. And the size the watch records take in each.

/** A fresh store. */
export interface BenchStore {
  label: 'SQLite' | 'Redis' | 'PostgreSQL' | 'MySQL';
  url: string;
  /** Deletes it, and whatever was written into it. */
  drop(): Promise<void>;
}

/** The kinds of stores `BENCH_STORES` chose. */
export function chosenStores(): string[] {
  return (process.env.BENCH_STORES ?? 'sqlite,redis,postgres,mysql')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
}

/** A fresh store of `kind`, or `undefined` (with why in `notes`) when this machine has none. */
export async function freshStore(kind: string, notes: string[]): Promise<BenchStore | undefined> {
  const name = `dossier_watches_${randomBytes(4).toString('hex')}`;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-watches-'));
    return {
      label: 'SQLite',
      url: `sqlite://${join(dir, 'store.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (kind === 'redis') {
    const redis = await startRedis();
    if (redis === undefined) notes.push('Redis skipped: no redis-server on PATH.');
    return redis && { label: 'Redis', url: redis.url, drop: () => redis.close() };
  }
  if (kind === 'postgres') {
    const postgres = process.env.BENCH_POSTGRES ?? process.env.DOSSIER_TEST_POSTGRES;
    if (!postgres) {
      notes.push('PostgreSQL skipped: set BENCH_POSTGRES (or DOSSIER_TEST_POSTGRES).');
      return undefined;
    }
    await postgresQuery(postgres, `CREATE SCHEMA ${name}`);
    const url = new URL(postgres);
    url.searchParams.set('options', `-c search_path=${name}`);
    return {
      label: 'PostgreSQL',
      url: url.href,
      drop: async () => {
        await emptyJobQueues(url.href);
        await postgresQuery(postgres, `DROP SCHEMA ${name} CASCADE`);
      },
    };
  }
  if (kind === 'mysql') {
    const mysqlUrl = process.env.BENCH_MYSQL ?? process.env.DOSSIER_TEST_MYSQL;
    if (!mysqlUrl) {
      notes.push('MySQL skipped: set BENCH_MYSQL (or DOSSIER_TEST_MYSQL).');
      return undefined;
    }
    await mysqlQuery(mysqlUrl, `CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    const url = new URL(mysqlUrl);
    url.pathname = `/${name}`;
    return { label: 'MySQL', url: url.href, drop: async () => void (await mysqlQuery(mysqlUrl, `DROP DATABASE ${name}`)) };
  }
  return undefined;
}

/**
 * Empties the job queues of `dossier serve` on the PostgreSQL store at `url`: BullMQ keeps its tables in a
 * schema of its own (dossier_jobs), which the bench's schema does not hold, and the schedules of the
 * bench's watches (in the queues named after the bench's schema) would otherwise stay there.
 */
async function emptyJobQueues(url: string): Promise<void> {
  const { Queue, createPostgresBackend } = await import('bullmq');
  const prefix = defaultJobQueuePrefix(url);
  for (const name of [`${prefix}-watch-checks`, `${prefix}-webhook-deliveries`]) {
    const queue = new Queue(name, { connection: bullmqPostgresConnection(url) }, createPostgresBackend);
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  }
}

/** The tables of the watch records (lib/stores/sql/watches.ts). */
const WATCH_TABLES = ['dossier_watches', 'dossier_watch_keys', 'dossier_watch_unscheduled', 'dossier_watch_deliveries'];

/**
 * The bytes the watch records of `store` take, as the store itself counts them, after what it does by
 * itself (no VACUUM, no OPTIMIZE): SQLite's pages (page_count × page_size, the file once checkpointed),
 * PostgreSQL's tables and indexes (pg_total_relation_size), MySQL's data and index length
 * (information_schema, after ANALYZE TABLE refreshes it), Redis's MEMORY USAGE of every key under the
 * watches' prefix `<namespace>:wr:`.
 */
export async function watchRecordsBytes(store: BenchStore, namespace: string): Promise<number> {
  if (store.label === 'SQLite') {
    const db = new Database(store.url.slice('sqlite://'.length));
    try {
      const pages = db.pragma('page_count', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      return pages * size;
    } finally {
      db.close();
    }
  }
  if (store.label === 'PostgreSQL') {
    const rows = await postgresQuery(
      store.url,
      `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
        WHERE c.relname = ANY($1) AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`,
      [WATCH_TABLES],
    );
    return Number(rows[0]?.bytes ?? 0);
  }
  if (store.label === 'MySQL') {
    await mysqlQuery(store.url, `ANALYZE TABLE ${WATCH_TABLES.join(', ')}`);
    const rows = await mysqlQuery(
      store.url,
      `SELECT sum(data_length + index_length) AS bytes FROM information_schema.tables
        WHERE table_schema = DATABASE() AND table_name IN (${WATCH_TABLES.map(() => '?').join(', ')})`,
      WATCH_TABLES,
    );
    return Number(rows[0]?.bytes ?? 0);
  }
  const client = createClient({ url: store.url });
  await client.connect();
  try {
    let bytes = 0;
    for await (const keys of client.scanIterator({ MATCH: `${namespace}:wr:*`, COUNT: 1000 })) {
      for (const key of keys) bytes += Number((await client.memoryUsage(key)) ?? 0);
    }
    return bytes;
  } finally {
    await client.quit();
  }
}

async function postgresQuery(url: string, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function mysqlQuery(url: string, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    const [rows] = await connection.query(sql, values);
    return rows as Record<string, unknown>[];
  } finally {
    await connection.end();
  }
}
