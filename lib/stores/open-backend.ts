import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Backend } from '../ports/backend.js';
import { createMemoryBackend } from './memory/backend.js';
import { createPostgresBackend, loadPostgresDriver } from './postgres/backend.js';
import { createRedisBackend, loadRedisDriver } from './redis/backend.js';
import { createSqliteBackend } from './sqlite/backend.js';

/** How {@link openBackend} opens a backend. */
export interface BackendOptions {
  /** Keeps this backend's keys apart from others on the same server. */
  namespace: string;
  /** Time source of counter and lease expiry. */
  clock: Clock;
  /** The deadline of one call to the backend, in milliseconds. @default 2000 */
  timeoutMs?: number;
  /** In memory, keep at most about this many values (for a cache). @default unbounded */
  memoryLimit?: number;
  /** Where the backend says what it could not do. @default nothing */
  logger?: Logger;
}

/**
 * Opens `memory://`, `sqlite://PATH`, `redis://…` or `postgres://…` with the driver of its scheme
 * (one file each in `backends/`). The URL was checked by `resolveOptions`; connection failures surface
 * as `ERR_STORE_UNAVAILABLE` on first use.
 */
export function openBackend(url: string, { namespace, clock, timeoutMs, memoryLimit, logger }: BackendOptions): Backend {
  switch (new URL(url).protocol) {
    case 'sqlite:':
      return createSqliteBackend({ path: url.slice('sqlite://'.length), namespace, clock, timeoutMs, logger });
    case 'redis:':
    case 'rediss:':
      return createRedisBackend({ url, namespace, clock, timeoutMs });
    case 'postgres:':
    case 'postgresql:':
      return createPostgresBackend({ url, namespace, clock, timeoutMs, logger });
    default:
      return createMemoryBackend({ namespace, clock, maxEntries: memoryLimit });
  }
}

/**
 * Loads the driver that {@link openBackend} needs for `url`, when it is an optional peer dependency
 * (Redis, PostgreSQL); nothing to load for memory:// and sqlite://.
 * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when it is not installed.
 */
export function loadDriver(url: string): void {
  switch (new URL(url).protocol) {
    case 'redis:':
    case 'rediss:':
      loadRedisDriver();
      break;
    case 'postgres:':
    case 'postgresql:':
      loadPostgresDriver();
  }
}
