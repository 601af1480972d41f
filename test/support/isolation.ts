import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RootHookObject } from 'mocha';
import { createClient } from '@keyv/redis';
import mysql from 'mysql2/promise';
import pg from 'pg';

/**
 * A root hook plugin (`require` in .mocharc.json): each mocha process (each worker of `--parallel`)
 * points `DOSSIER_TEST_REDIS`, `DOSSIER_TEST_POSTGRES` and `DOSSIER_TEST_MYSQL` at a Redis database, a
 * PostgreSQL schema and a MySQL database of its own before any test file is loaded, and each test file
 * starts with them empty and leaves them emptied (the schema and the MySQL database dropped; the Redis
 * database kept reserved for the process's next file). So the fixed namespace of the container (`dossier`) is never shared between files running
 * side by side, nor left behind for the next file or run.
 */
export async function mochaHooks(): Promise<RootHookObject> {
  // With --parallel, mocha loads this plugin in the main process too, which runs no test: what it set
  // in the environment would be inherited by every worker, and what it reserved never given back.
  if (process.env.MOCHA_WORKER_ID === undefined && process.argv.includes('--parallel')) return {};
  const redis = process.env.DOSSIER_TEST_REDIS ? await reserveRedisDatabase(process.env.DOSSIER_TEST_REDIS) : undefined;
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const postgres = process.env.DOSSIER_TEST_POSTGRES ? ownSchema(process.env.DOSSIER_TEST_POSTGRES, schema) : undefined;
  const mysqlDatabase = process.env.DOSSIER_TEST_MYSQL ? ownDatabase(process.env.DOSSIER_TEST_MYSQL, schema) : undefined;
  if (redis) process.env.DOSSIER_TEST_REDIS = redis.url;
  if (postgres) process.env.DOSSIER_TEST_POSTGRES = postgres.url;
  if (mysqlDatabase) process.env.DOSSIER_TEST_MYSQL = mysqlDatabase.url;
  namespaces = [redis, postgres, mysqlDatabase].filter((namespace) => namespace !== undefined);
  return {
    async beforeAll() {
      await emptyNamespaces();
    },
    async afterAll() {
      for (const namespace of namespaces) await namespace.reset(false);
    },
  };
}

/** This process's namespaces, once {@link mochaHooks} reserved them. */
let namespaces: Namespace[] = [];

/**
 * Empties this process's Redis database, PostgreSQL schema and MySQL database, as each test file starts: for a file
 * whose suites run again (once per adapter, see harness.ts's eachAdapter), each run starting afresh.
 */
export async function emptyNamespaces(): Promise<void> {
  for (const namespace of namespaces) await namespace.reset(true);
}

/** A test process's own namespace on a shared server: its URL, and how to empty it (`keep`: for another file). */
interface Namespace {
  url: string;
  reset(keep: boolean): Promise<void>;
}

/** Databases a Redis server has by default (`databases 16`); 0 holds the reservations. */
const REDIS_DATABASES = 16;

/** How long a reservation outlives its last use, should its holder die where its pid cannot be checked. */
const RESERVATION_MS = 15 * 60_000;

/**
 * Takes a reservation: when absent, or held by a process of this host that no longer runs (a worker
 * ends without a hook to give it back). Answers 1 when taken, 0 when another holds it.
 */
const RESERVE_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or not holder or holder == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

/** `host:pid` of this process: a reservation's holder. */
const holderOf = (pid: number): string => `${hostname()}:${pid}`;

/** True when `holder` is a process of this host that has ended. */
function ended(holder: string | null): boolean {
  const [host, pid] = (holder ?? '').split(':');
  if (host !== hostname() || !pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Reserves one of the numbered databases of the Redis at `url` (a key per database in database 0),
 * for as long as this process runs, and answers its URL. Each file empties it before and after.
 */
async function reserveRedisDatabase(url: string): Promise<Namespace> {
  // The database is named in the URL's path: node-redis prefers it to a `database` option.
  const urlOf = (database: number): string => {
    const named = new URL(url);
    named.pathname = `/${database}`;
    return named.href;
  };
  const connect = (database: number) => createClient({ url: urlOf(database) });
  const withClient = async <T>(database: number, use: (client: ReturnType<typeof connect>) => Promise<T>): Promise<T> => {
    const client = connect(database);
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.quit();
    }
  };
  const me = holderOf(process.pid);
  const reserve = async (client: ReturnType<typeof connect>, n: number): Promise<boolean> => {
    const key = `dossier-test:database:${n}`;
    const holder = await client.get(key);
    const reclaimable = ended(holder) ? holder! : me;
    const taken = await client.eval(RESERVE_SCRIPT, { keys: [key], arguments: [me, String(RESERVATION_MS), reclaimable] });
    return Number(taken) === 1;
  };
  const number = await withClient(0, async (client) => {
    for (let n = 1; n < REDIS_DATABASES; n += 1) if (await reserve(client, n)) return n;
    throw new Error(
      `All ${REDIS_DATABASES - 1} test databases of ${url} are reserved (keys dossier-test:database:N in database 0).`,
    );
  });
  return {
    url: urlOf(number),
    async reset() {
      // Taken again each time: a holder that no longer ran may have been reclaimed (it cannot be us).
      const held = await withClient(0, (client) => reserve(client, number));
      if (!held) throw new Error(`Redis test database ${number} was taken by another process.`);
      await withClient(number, (client) => client.flushDb());
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

/** A database of its own on the MySQL server at `url` (whose user may create databases). */
function ownDatabase(url: string, database: string): Namespace {
  const own = new URL(url);
  own.pathname = `/${database}`;
  return {
    url: own.href,
    async reset(keep) {
      const connection = await mysql.createConnection({ uri: url });
      try {
        // A session a test left open with a lock in the database fails the drop, instead of hanging it.
        await connection.query('SET SESSION lock_wait_timeout = 10');
        await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
        if (keep) await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
      } finally {
        await connection.end();
      }
    },
  };
}
