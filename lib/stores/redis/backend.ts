import Keyv from 'keyv';
import type { Clock } from '../../ports/clock.js';
import { RedisAdmissionStore } from './admission.js';
import { RedisCounterStore, type RedisEvalClient } from './counters.js';
import { RedisDocumentStore } from './documents.js';
import { RedisWatchStore, type RedisWatchClient } from './watches.js';
import { RedisKeyRecords, type RedisKeyClient } from './keys.js';
import { RedisSessionStore, type RedisSessionClient } from './sessions.js';
import { StoreGuard } from '../shared/guard.js';
import { deserialize, serialize } from '../shared/serialize.js';
import type { Backend } from '../../ports/backend.js';
import { assembleBackend } from '../shared/assemble.js';
import { loadOptionalPeer } from '../shared/optional-peer.js';

/** The module of the Redis driver. */
type KeyvRedisModule = typeof import('@keyv/redis');

/** Settings of {@link createRedisBackend}. */
export interface RedisOptions {
  /** `redis://…` or `rediss://…`, with an optional database number as its path. */
  url: string;
  /** Prefix of this backend's keys on the server. @default 'dossier' */
  namespace?: string;
  /** Time source of the admissions and of counter expiry (sent to Redis as a time to live). @default Date.now */
  clock?: Clock;
  /**
   * The deadline of one call, connecting included, in milliseconds. Past it the call fails with
   * `ERR_STORE_UNAVAILABLE` and the connection is dropped; the next call connects anew. @default 2000
   */
  timeoutMs?: number;
}

/**
 * The Redis driver, `@keyv/redis`: an optional peer dependency.
 * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when it is not installed.
 */
export function loadRedisDriver(): KeyvRedisModule {
  return loadOptionalPeer<KeyvRedisModule>('@keyv/redis', 'A redis:// store');
}

/**
 * A Redis server (`redis://…`): values through `@keyv/redis`, counters, leases and the indexes of the
 * documents as Lua scripts on the same connection. Every call has a deadline of its own, because
 * node-redis waits for an answer as long as the socket stays open: a server stopped with SIGSTOP keeps it
 * open and never answers.
 */
export function createRedisBackend(options: RedisOptions): Backend {
  const { default: KeyvRedis, createClient } = loadRedisDriver();
  const timeoutMs = options.timeoutMs ?? 2000;
  const namespace = options.namespace ?? 'dossier';
  const client = redisClient(createClient, options.url, timeoutMs);
  // A call past its deadline drops the connection: the commands queued on it fail, and the next call
  // connects again (to a server that may answer by then).
  const guard = new StoreGuard({
    timeoutMs,
    onTimeout: () => {
      if (client.isOpen) client.destroy();
    },
  });
  // No `connectionTimeout` here: keyv races the connection against a timer it never clears, which kept
  // the process alive for the whole deadline after every connection; the socket's own connectTimeout
  // and the guard bound the connection already.
  const adapter = new KeyvRedis(client, { throwOnConnectError: true, throwOnErrors: true });
  // keyv attaches its listeners to the client again at every reconnection (getClient calls initClient),
  // which piles them up; the client never changes here, so the set attached by the constructor is enough.
  (adapter as unknown as { initClient(): void }).initClient = () => {};
  const connected = (): Promise<RedisEvalClient> => adapter.getClient() as Promise<unknown> as Promise<RedisEvalClient>;
  const clock = options.clock ?? { now: () => Date.now() };
  const counterPrefix = `${namespace}:counter:`;
  const keys = new RedisKeyRecords({
    client: connected as () => Promise<RedisKeyClient>,
    guard,
    namespace,
    now: () => clock.now(),
  });
  return assembleBackend({
    keyv: new Keyv({ store: adapter, namespace, useKeyPrefix: false, serialize, deserialize }),
    counters: new RedisCounterStore(connected, counterPrefix, clock, guard),
    clock,
    guard,
    admissions: new RedisAdmissionStore(connected, guard, keys.prefix, counterPrefix, keys, clock),
    documents: ({ kv, counters }) => new RedisDocumentStore({ client: connected, guard, kv, counters, namespace, timeoutMs }),
    watches: new RedisWatchStore({ client: connected as () => Promise<RedisWatchClient>, guard, namespace }),
    keys,
    sessions: new RedisSessionStore({ client: connected as () => Promise<RedisSessionClient>, guard, namespace, clock }),
  });
}

/**
 * A Redis client that never keeps a request waiting for Redis to come back. node-redis would reconnect
 * in the background and hold every command until it succeeds; here a lost or refused connection closes
 * the client at once, failing what was sent (the request answers 503), and the next command connects
 * anew. Commands sent while a connection is being made wait for it, up to the deadline.
 */
function redisClient(createClient: KeyvRedisModule['createClient'], url: string, timeoutMs: number) {
  const client = createClient({ url, socket: { connectTimeout: timeoutMs, reconnectStrategy: (_retries, cause) => cause } });
  // Failures reach the callers of each command; without a listener, node-redis would crash the process.
  client.on('error', () => {});
  return client;
}
