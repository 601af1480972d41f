import type Keyv from 'keyv';
import type { AdmissionStore } from '../../ports/admission-store.js';
import type { Backend } from '../../ports/backend.js';
import type { Clock } from '../../ports/clock.js';
import type { CounterStore } from '../../ports/counter-store.js';
import type { DocumentStore } from '../../ports/document-store.js';
import type { KeyRecords } from '../../ports/key-store.js';
import type { SessionStore } from '../../ports/session-store.js';
import type { WatchStore } from '../../ports/watch-store.js';
import { ComposedAdmissionStore } from './composed-admission.js';
import { StoreGuard, guardStore, storeClosed } from './guard.js';
import { KeyvKvStore } from './keyv-kv-store.js';

/** How a backend's parts are put together by {@link assembleBackend}. */
export interface AssembleOptions {
  /** The backend's values. */
  keyv: Keyv;
  /** The backend's counters. */
  counters: CounterStore;
  /** Time source of the admissions built here. */
  clock: Clock;
  /**
   * The backend's own one-step admission.
   * @default one call after the other on the values and counters ({@link ComposedAdmissionStore})
   */
  admissions?: AdmissionStore;
  /**
   * The backend's documents, when it keeps them in tables or indexes of its own, each call held to the
   * guard's deadline as a whole; or how to make them from the backend's values and counters (which refuse
   * every call once the backend is closed), every store call of theirs held to the deadline. @default none
   */
  documents?: DocumentStore | ((parts: { kv: KeyvKvStore; counters: CounterStore }) => DocumentStore);
  /** The backend's watches, in tables or structures of its own, each call held to the guard's deadline. @default none */
  watches?: WatchStore;
  /** The backend's keys, in tables or structures of its own, each call held to the guard's deadline. @default none */
  keys?: KeyRecords;
  /** The backend's sessions, in tables or structures of its own, each call held to the guard's deadline. @default none */
  sessions?: SessionStore;
  /** Holds every value call to the backend's deadline. @default no deadline */
  guard?: StoreGuard;
  /** True when values stay objects in this process (memory://): see {@link KeyvKvStore}. @default false */
  sharesObjects?: boolean;
  /** Runs after both parts are closed (ends a pool the parts share). @default nothing */
  release?: () => Promise<void>;
}

/**
 * A backend from its parts. Once closed, it answers every call with `ERR_STORE_UNAVAILABLE`, on every
 * kind of store (a Redis client would otherwise open a new connection that nothing closes).
 */
export function assembleBackend(options: AssembleOptions): Backend {
  const { keyv, counters, guard, sharesObjects = false, release } = options;
  const kv = new KeyvKvStore(keyv, sharesObjects, guard);
  const ifOpen = <T>(call: () => Promise<T>): Promise<T> => (kv.closed ? storeClosed() : call());
  // Documents, whose failures the backend leaves as its driver raised them, through the backend's guard;
  // those made from the guarded values and counters hold each of their calls to the deadline already (a
  // long search is many short calls, and the guard would drop the connection of every request at its end).
  const ownDeadlines = typeof options.documents === 'function';
  const guarded = <T>(call: () => Promise<T>): Promise<T> =>
    ifOpen(() => (guard && !ownDeadlines ? guard.run(call) : guardStore(call)));
  const guardedCounters: CounterStore = {
    increment: (name, options) => ifOpen(() => counters.increment(name, options)),
    decrement: (name) => ifOpen(() => counters.decrement(name)),
    get: (name) => ifOpen(() => counters.get(name)),
    getMany: (names) => ifOpen(() => counters.getMany(names)),
    acquireLease: (name, owner, ttlMs) => ifOpen(() => counters.acquireLease(name, owner, ttlMs)),
    releaseLease: (name, owner) => ifOpen(() => counters.releaseLease(name, owner)),
    close: () => counters.close(),
  };
  const documents =
    typeof options.documents === 'function' ? options.documents({ kv, counters: guardedCounters }) : options.documents;
  const { watches, keys, sessions } = options;
  // Every method the same way: through the guard, refused once closed.
  const eachGuarded = <T extends object>(target: T): T =>
    new Proxy(target, {
      get: (of, name) => {
        const value: unknown = Reflect.get(of, name, of);
        if (typeof value !== 'function') return value;
        return (...parameters: unknown[]) =>
          guarded(() => (value as (...values: unknown[]) => Promise<unknown>).apply(of, parameters));
      },
    });
  const admissions = options.admissions ?? new ComposedAdmissionStore(kv, guardedCounters, options.clock);
  return {
    kv,
    counters: guardedCounters,
    admissions: { admit: (secret, kind, defaultLimit) => ifOpen(() => admissions.admit(secret, kind, defaultLimit)) },
    ...(documents && {
      documents: {
        create: (document) => guarded(() => documents.create(document)),
        get: (owner, id) => guarded(() => documents.get(owner, id)),
        update: (owner, id, changes) => guarded(() => documents.update(owner, id, changes)),
        delete: (owner, id) => guarded(() => documents.delete(owner, id)),
        list: (owner, query) => guarded(() => documents.list(owner, query)),
      },
    }),
    ...(watches && { watches: eachGuarded(watches) }),
    ...(keys && { keys: eachGuarded(keys) }),
    ...(sessions && { sessions: eachGuarded(sessions) }),
    async close() {
      const disconnecting = kv.close(); // from here on, kv.closed refuses every call
      await counters.close();
      await disconnecting;
      await release?.();
    },
  };
}
