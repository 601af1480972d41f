import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { KvStore } from '../ports/kv-store.js';
import type { SessionRecord, SessionStore, SignInVerdict } from '../ports/session-store.js';
import { countTry, lockedAt, type TriesRecord } from '../records/sign-in-tries.js';
import { withLease } from '../stores/shared/lease.js';

/**
 * Sessions and wrong tries as values of the store, each with its time to live: the memory store's (the SQL
 * stores and Redis keep them as records of their own). A try is judged under the address's lease, which
 * lives in this one process.
 */
export class KvSessionStore implements SessionStore {
  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    private readonly clock: Clock,
  ) {}

  async put(name: string, record: SessionRecord): Promise<void> {
    const ttl = record.expiresAt - this.clock.now();
    if (ttl > 0) await this.kv.set(name, record, ttl);
  }

  async get(name: string, now: number): Promise<SessionRecord | undefined> {
    const record = await this.kv.get<SessionRecord>(name);
    return record !== undefined && record.expiresAt > now ? record : undefined;
  }

  async remove(name: string): Promise<void> {
    await this.kv.delete(name);
  }

  async lockedUntil(name: string, now: number): Promise<number | null> {
    return lockedAt(await this.kv.get<TriesRecord>(name), now);
  }

  async attempt(name: string, now: number, isRight: () => boolean): Promise<SignInVerdict> {
    // A locked address is refused on a read alone: tries made while it is locked write nothing.
    const seen = lockedAt(await this.kv.get<TriesRecord>(name), now);
    if (seen !== null) return { outcome: 'locked', lockedUntil: seen };
    return withLease(this.counters, name, async (): Promise<SignInVerdict> => {
      const tried = countTry(await this.kv.get<TriesRecord>(name), this.clock.now());
      if ('locked' in tried) return tried.locked;
      await this.kv.set(name, tried.counted, tried.expiresAt - this.clock.now());
      if (!isRight()) return { outcome: 'wrong', nowLocked: tried.nowLocked };
      await this.kv.delete(name);
      return { outcome: 'right' };
    });
  }
}
