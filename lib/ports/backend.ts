import type { AdmissionStore } from './admission-store.js';
import type { CounterStore } from './counter-store.js';
import type { DocumentStore } from './document-store.js';
import type { KeyRecords } from './key-store.js';
import type { KvStore } from './kv-store.js';
import type { SessionStore } from './session-store.js';
import type { WatchStore } from './watch-store.js';

/** A storage backend: values through Keyv, and the backend's own atomic counters. */
export interface Backend {
  /** Values by key. */
  kv: KvStore;
  /** Atomic counters on the same backend. */
  counters: CounterStore;
  /** The hot path of interface A: authenticate and count in one atomic step of the backend. */
  admissions: AdmissionStore;
  /**
   * Documents as rows of the backend's own tables, listed by its queries (the SQL backends). Absent
   * where the core keeps documents as values and counters (memory, Redis).
   */
  documents?: DocumentStore;
  /**
   * Watches and their deliveries as records of the backend's own tables or structures, each change one
   * atomic step (the SQL backends and Redis). Absent where the core keeps them as values (memory).
   */
  watches?: WatchStore;
  /**
   * Keys as records of the backend's own tables or structures, each change one atomic step (the SQL
   * backends and Redis). Absent where the core keeps them as values (memory).
   */
  keys?: KeyRecords;
  /** The sessions and wrong tries, as records of the backend's own (the SQL backends and Redis). Absent: values (memory). */
  sessions?: SessionStore;
  /** Closes every connection of the backend. */
  close(): Promise<void>;
}
