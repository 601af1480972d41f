import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import Keyv from 'keyv';
import QuickLRU from 'quick-lru';
import { KeyvPostgres } from '@keyv/postgres';
import KeyvRedis, { createClient } from '@keyv/redis';
import { KeyvSqlite } from '@keyv/sqlite';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import { MemoryCounterStore } from './counters/memory.js';
import { RedisCounterStore, type RedisEvalClient } from './counters/redis.js';
import { SqlCounterStore } from './counters/sql.js';
import { storeClosed } from './guard.js';
import { KvStore } from './kv-store.js';

/** A storage backend opened from a URL: values through Keyv, and the backend's own atomic counters. */
export interface Backend {
  /** Values by key. */
  kv: KvStore;
  /** Atomic counters on the same backend. */
  counters: CounterStore;
  /** Closes every connection of the backend. */
  close(): Promise<void>;
}

/** How {@link openBackend} opens a backend. */
export interface BackendOptions {
  /** Keeps this backend's keys apart from others on the same server. */
  namespace: string;
  /** Time source of the memory counters. */
  clock: Clock;
  /**
   * For a cache: in memory, keep at most about this many values, least recently used dropped first
   * (Keyv's Map forgets an expired value only when it is read again). @default unbounded
   */
  memoryLimit?: number;
}

/**
 * Opens `memory://`, `sqlite://PATH`, `redis://…` or `postgres://…`. The URL was checked by
 * `resolveOptions`; connection failures surface as `ERR_STORE_UNAVAILABLE` on first use.
 */
export function openBackend(url: string, { namespace, clock, memoryLimit }: BackendOptions): Backend {
  const protocol = new URL(url).protocol;
  if (protocol === 'sqlite:') {
    const path = url.slice('sqlite://'.length);
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch {
      // Opening the file below fails too, and that failure is reported as ERR_STORE_UNAVAILABLE on use.
    }
    const adapter = new KeyvSqlite({ uri: url, busyTimeout: SQLITE_BUSY_TIMEOUT_MS });
    let configured: Promise<void> | undefined;
    const query = async (sql: string, parameters: unknown[]): Promise<unknown[]> => {
      // A failed attempt is forgotten, so that the next statement tries again instead of failing for good.
      configured ??= configureSqlite(adapter).catch((error: unknown) => {
        configured = undefined;
        throw error;
      });
      await configured;
      return adapter.query(sql, ...parameters) as Promise<unknown[]>;
    };
    return withKeyv(new Keyv({ store: adapter, namespace }), new SqlCounterStore(query, () => '?', clock));
  }
  if (protocol === 'redis:' || protocol === 'rediss:') {
    const adapter = new KeyvRedis(redisClient(url), { throwOnConnectError: true, throwOnErrors: true, connectionTimeout: 5000 });
    // keyv attaches its listeners to the client again at every reconnection (getClient calls initClient),
    // which piles them up; the client never changes here, so the set attached by the constructor is enough.
    (adapter as unknown as { initClient(): void }).initClient = () => {};
    const client = (): Promise<RedisEvalClient> => adapter.getClient() as Promise<unknown> as Promise<RedisEvalClient>;
    return withKeyv(
      new Keyv({ store: adapter, namespace, useKeyPrefix: false }),
      new RedisCounterStore(client, `${namespace}:counter:`),
    );
  }
  if (protocol === 'postgres:' || protocol === 'postgresql:') {
    const adapter = new KeyvPostgres({ uri: url, max: 10, connectionTimeoutMillis: 5000 });
    const counters = new SqlCounterStore(
      (sql, parameters) => adapter.query(sql, parameters),
      (n) => `$${n}`,
      clock,
    );
    return withKeyv(new Keyv({ store: adapter, namespace }), counters);
  }
  // In memory, values stay objects: no JSON round trip on every read.
  const store = memoryLimit === undefined ? new Map() : new QuickLRU<string, unknown>({ maxSize: memoryLimit });
  const keyv = new Keyv({ store, namespace, serialize: undefined, deserialize: undefined });
  return withKeyv(keyv, new MemoryCounterStore(clock), true);
}

/**
 * A Redis client that never keeps a request waiting for Redis to come back. node-redis would reconnect
 * in the background and hold every command until it succeeds; here a lost or refused connection closes
 * the client at once, failing what was sent (the request answers 503), and the next command connects
 * anew. Commands sent while a connection is being made wait for it, up to the connection timeout.
 */
function redisClient(url: string) {
  const client = createClient({ url, socket: { connectTimeout: 5000, reconnectStrategy: (_retries, cause) => cause } });
  // Failures reach the callers of each command; without a listener, node-redis would crash the process.
  client.on('error', () => {});
  return client;
}

/** How long a SQLite statement waits for another connection's lock before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/**
 * Puts a SQLite connection in WAL mode, which lets readers and a writer share the file across processes,
 * with `synchronous = NORMAL`, which skips an fsync per commit. Switching a new file to WAL needs an
 * exclusive lock and answers SQLITE_BUSY at once, without SQLite's busy handler, while another
 * connection holds any lock (two processes opening a new store together): so it is retried here.
 */
async function configureSqlite(adapter: KeyvSqlite): Promise<void> {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      await adapter.query('PRAGMA journal_mode = WAL');
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() + wait > deadline) throw error;
      await sleep(wait);
    }
  }
  await adapter.query('PRAGMA synchronous = NORMAL');
}

function withKeyv(keyv: Keyv, counters: CounterStore, sharesObjects = false): Backend {
  const kv = new KvStore(keyv, sharesObjects);
  // Once closed, a backend answers every call with ERR_STORE_UNAVAILABLE, on every kind of store
  // (a Redis client would otherwise open a new connection that nothing closes).
  const ifOpen = <T>(call: () => Promise<T>): Promise<T> => (kv.closed ? storeClosed() : call());
  return {
    kv,
    counters: {
      increment: (name, options) => ifOpen(() => counters.increment(name, options)),
      decrement: (name) => ifOpen(() => counters.decrement(name)),
      get: (name) => ifOpen(() => counters.get(name)),
      acquireLease: (name, owner, ttlMs) => ifOpen(() => counters.acquireLease(name, owner, ttlMs)),
      releaseLease: (name, owner) => ifOpen(() => counters.releaseLease(name, owner)),
      close: () => counters.close(),
    },
    async close() {
      const disconnecting = kv.close(); // from here on, kv.closed refuses every call
      await counters.close();
      await disconnecting;
    },
  };
}
