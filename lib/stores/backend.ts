import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Keyv from 'keyv';
import QuickLRU from 'quick-lru';
import { KeyvPostgres } from '@keyv/postgres';
import KeyvRedis from '@keyv/redis';
import { KeyvSqlite } from '@keyv/sqlite';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import { MemoryCounterStore } from './counters/memory.js';
import { RedisCounterStore, type RedisEvalClient } from './counters/redis.js';
import { SqlCounterStore } from './counters/sql.js';
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
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    } catch {
      // Opening the file below fails too, and that failure is reported as ERR_STORE_UNAVAILABLE on use.
    }
    const adapter = new KeyvSqlite({ uri: url, busyTimeout: 10_000 });
    // WAL lets readers and a writer share the file across processes; NORMAL skips an fsync per commit.
    const configured = adapter.query('PRAGMA journal_mode = WAL').then(() => adapter.query('PRAGMA synchronous = NORMAL'));
    configured.catch(() => {});
    const query = async (sql: string, ...parameters: unknown[]): Promise<unknown[]> => {
      await configured;
      return adapter.query(sql, ...parameters) as Promise<unknown[]>;
    };
    return withKeyv(new Keyv({ store: adapter, namespace }), new SqlCounterStore((sql, parameters) => query(sql, ...parameters), () => '?'));
  }
  if (protocol === 'redis:' || protocol === 'rediss:') {
    const adapter = new KeyvRedis(url, { throwOnConnectError: true, throwOnErrors: true, connectionTimeout: 5000 });
    const client = (): Promise<RedisEvalClient> => adapter.getClient() as Promise<unknown> as Promise<RedisEvalClient>;
    return withKeyv(
      new Keyv({ store: adapter, namespace, useKeyPrefix: false }),
      new RedisCounterStore(client, `${namespace}:counter:`),
    );
  }
  if (protocol === 'postgres:' || protocol === 'postgresql:') {
    const adapter = new KeyvPostgres({ uri: url, max: 10, connectionTimeoutMillis: 5000 });
    const counters = new SqlCounterStore((sql, parameters) => adapter.query(sql, parameters), (n) => `$${n}`);
    return withKeyv(new Keyv({ store: adapter, namespace }), counters);
  }
  // In memory, values stay objects: no JSON round trip on every read.
  const store = memoryLimit === undefined ? new Map() : new QuickLRU<string, unknown>({ maxSize: memoryLimit });
  const keyv = new Keyv({ store, namespace, serialize: undefined, deserialize: undefined });
  return withKeyv(keyv, new MemoryCounterStore(clock), true);
}

function withKeyv(keyv: Keyv, counters: CounterStore, sharesObjects = false): Backend {
  const kv = new KvStore(keyv, sharesObjects);
  return {
    kv,
    counters,
    async close() {
      await counters.close();
      await kv.close();
    },
  };
}
