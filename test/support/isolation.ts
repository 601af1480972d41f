import { randomBytes } from 'node:crypto';
import type { RootHookObject } from 'mocha';
import { createClient } from '@keyv/redis';
import pg from 'pg';

/**
 * A root hook plugin (`require` in .mocharc.json): each mocha process (each worker of `--parallel`)
 * points `DOSSIER_TEST_REDIS` and `DOSSIER_TEST_POSTGRES` at a Redis database and a PostgreSQL schema of
 * its own before any test file is loaded, and each test file starts with them empty and leaves them
 * dropped. So the fixed namespace of the container (`dossier`) is never shared between files running
 * side by side, nor left behind for the next file or run.
 */
export async function mochaHooks(): Promise<RootHookObject> {
  const token = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const redis = process.env.DOSSIER_TEST_REDIS ? await reserveRedisDatabase(process.env.DOSSIER_TEST_REDIS, token) : undefined;
  const postgres = process.env.DOSSIER_TEST_POSTGRES
    ? ownSchema(process.env.DOSSIER_TEST_POSTGRES, `test_${token.replace('-', '_')}`)
    : undefined;
  if (redis) process.env.DOSSIER_TEST_REDIS = redis.url;
  if (postgres) process.env.DOSSIER_TEST_POSTGRES = postgres.url;
  return {
    async beforeAll() {
      await redis?.reset(true);
      await postgres?.reset(true);
    },
    async afterAll() {
      await redis?.reset(false);
      await postgres?.reset(false);
    },
  };
}

/** A test process's own namespace on a shared server: its URL, and how to empty it (and keep or give it up). */
interface Namespace {
  url: string;
  reset(keep: boolean): Promise<void>;
}

/** Databases a Redis server has by default (`databases 16`); 0 holds the reservations. */
const REDIS_DATABASES = 16;

/** How long a reservation outlives a process that died without giving it back. */
const RESERVATION_MS = 15 * 60_000;

/**
 * Reserves one of the numbered databases of the Redis at `url` (a key per database in database 0,
 * set only when absent), for this process while a file runs, and answers its URL.
 */
async function reserveRedisDatabase(url: string, token: string): Promise<Namespace> {
  const base = new URL(url);
  const connect = (database: number) => createClient({ url, database });
  const withClient = async <T>(database: number, use: (client: ReturnType<typeof connect>) => Promise<T>): Promise<T> => {
    const client = connect(database);
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.quit();
    }
  };
  const reserve = (client: ReturnType<typeof connect>, n: number) =>
    client.set(`dossier-test:database:${n}`, token, { NX: true, PX: RESERVATION_MS });
  const number = await withClient(0, async (client) => {
    for (let n = 1; n < REDIS_DATABASES; n += 1) if ((await reserve(client, n)) === 'OK') return n;
    throw new Error(
      `All ${REDIS_DATABASES - 1} test databases of ${url} are reserved (keys dossier-test:database:N in database 0).`,
    );
  });
  base.pathname = `/${number}`;
  return {
    url: base.href,
    async reset(keep) {
      await withClient(0, async (client) => {
        const holder = (await reserve(client, number)) === 'OK' ? token : await client.get(`dossier-test:database:${number}`);
        if (holder !== token) throw new Error(`Redis test database ${number} was taken by another process (${holder}).`);
      });
      await withClient(number, (client) => client.flushDb());
      if (!keep) await withClient(0, (client) => client.del(`dossier-test:database:${number}`));
    },
  };
}

/** A schema of its own on the PostgreSQL at `url`: every connection made from the URL it answers uses it. */
function ownSchema(url: string, schema: string): Namespace {
  const own = new URL(url);
  own.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: own.href,
    async reset(keep) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // A session a test left open with a lock on the schema fails the drop, instead of hanging it.
        await client.query(`SET lock_timeout = '10s'`);
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        if (keep) await client.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await client.end();
      }
    },
  };
}
