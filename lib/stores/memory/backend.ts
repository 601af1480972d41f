import Keyv from 'keyv';
import QuickLRU from 'quick-lru';
import type { Clock } from '../../ports/clock.js';
import { MemoryCounterStore } from './counters.js';
import type { Backend } from '../../ports/backend.js';
import { assembleBackend } from '../shared/assemble.js';

/** Settings of {@link createMemoryBackend}. */
export interface MemoryOptions {
  /** Keeps this backend's keys apart from others'. @default 'dossier' */
  namespace?: string;
  /** Time source of counter and lease expiry. @default Date.now */
  clock?: Clock;
  /**
   * Keep at most about this many values, least recently used dropped first (for a cache: Keyv's Map
   * forgets an expired value only when it is read again). @default unbounded
   */
  maxEntries?: number;
}

/**
 * Values and counters in this process's memory (`memory://`): nothing shared, nothing kept after exit.
 * Values stay objects (no JSON round trip on a read), copied and frozen once when written.
 */
export function createMemoryBackend(options: MemoryOptions = {}): Backend {
  const store = options.maxEntries === undefined ? new Map() : new QuickLRU<string, unknown>({ maxSize: options.maxEntries });
  const keyv = new Keyv({ store, namespace: options.namespace ?? 'dossier', serialize: undefined, deserialize: undefined });
  const clock = options.clock ?? { now: () => Date.now() };
  return assembleBackend({ keyv, counters: new MemoryCounterStore(clock), clock, sharesObjects: true });
}
