import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Backend } from '../ports/backend.js';
import { createMemoryBackend } from './memory/backend.js';
import { loadMysqlDriver } from './mysql/connection.js';
import { createMysqlBackend } from './mysql/backend.js';
import { createPostgresBackend, loadPostgresDriver } from './postgres/backend.js';
import { createRedisBackend, loadRedisDriver } from './redis/backend.js';
import { STORE_SCHEMES, storeScheme, type BackendName } from './schemes.js';
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

/** How each backend opens from its URL, and the driver it needs when that is an optional peer dependency. */
const BACKENDS: Record<BackendName, { open(url: string, options: BackendOptions): Backend; loadDriver?(): void }> = {
  memory: {
    open: (_url, { namespace, clock, memoryLimit }) => createMemoryBackend({ namespace, clock, maxEntries: memoryLimit }),
  },
  sqlite: {
    open: (url, { namespace, clock, timeoutMs, logger }) =>
      createSqliteBackend({ path: url.slice('sqlite://'.length), namespace, clock, timeoutMs, logger }),
  },
  redis: {
    open: (url, { namespace, clock, timeoutMs }) => createRedisBackend({ url, namespace, clock, timeoutMs }),
    loadDriver: loadRedisDriver,
  },
  postgres: {
    open: (url, { namespace, clock, timeoutMs, logger }) => createPostgresBackend({ url, namespace, clock, timeoutMs, logger }),
    loadDriver: loadPostgresDriver,
  },
  mysql: {
    open: (url, { namespace, clock, timeoutMs }) => createMysqlBackend({ url, namespace, clock, timeoutMs }),
    loadDriver: loadMysqlDriver,
  },
};

/** The backend of a store URL's scheme (`STORE_SCHEMES`). @throws Error for a scheme that is none of them */
function backendOf(url: string): (typeof BACKENDS)[BackendName] {
  const scheme = storeScheme(url);
  if (scheme === undefined) throw new Error(`No store has the URL scheme of "${url}".`);
  return BACKENDS[STORE_SCHEMES[scheme].backend];
}

/**
 * Opens `memory://`, `sqlite://PATH`, `redis://…`, `postgres://…` or `mysql://…` (`mariadb://…`) with
 * the driver of its scheme (one folder each in lib/stores). The URL was checked by `resolveOptions`;
 * connection failures surface as `ERR_STORE_UNAVAILABLE` on first use.
 */
export function openBackend(url: string, options: BackendOptions): Backend {
  return backendOf(url).open(url, options);
}

/**
 * Loads the driver that {@link openBackend} needs for `url`, when it is an optional peer dependency
 * (Redis, PostgreSQL, MySQL); nothing to load for memory:// and sqlite://.
 * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when it is not installed.
 */
export function loadDriver(url: string): void {
  backendOf(url).loadDriver?.();
}
