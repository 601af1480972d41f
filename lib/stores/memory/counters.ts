import type { Clock } from '../../ports/clock.js';
import type { CounterStore, IncrementOptions } from '../../ports/counter-store.js';

/** Counters in this process's memory: atomic because JavaScript runs one thing at a time. */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { value: number; expiresAt: number }>();
  private readonly leases = new Map<string, { owner: string; expiresAt: number }>();

  constructor(private readonly clock: Clock = { now: () => Date.now() }) {}

  async increment(name: string, options: IncrementOptions = {}): Promise<number | null> {
    const value = this.read(name);
    if (options.ceiling !== undefined && value >= options.ceiling) return null;
    this.counters.set(name, { value: value + 1, expiresAt: options.expiresAt ?? Infinity });
    return value + 1;
  }

  async decrement(name: string): Promise<void> {
    const entry = this.counters.get(name);
    if (entry && entry.value > 0) entry.value -= 1;
  }

  async get(name: string): Promise<number> {
    return this.read(name);
  }

  async getMany(names: string[]): Promise<number[]> {
    return names.map((name) => this.read(name));
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const held = this.leases.get(name);
    if (held !== undefined && held.owner !== owner && held.expiresAt > this.clock.now()) return false;
    this.leases.set(name, { owner, expiresAt: this.clock.now() + ttlMs });
    return true;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    if (this.leases.get(name)?.owner === owner) this.leases.delete(name);
  }

  async close(): Promise<void> {
    this.counters.clear();
    this.leases.clear();
  }

  private read(name: string): number {
    const entry = this.counters.get(name);
    if (entry === undefined) return 0;
    if (entry.expiresAt <= this.clock.now()) {
      this.counters.delete(name);
      return 0;
    }
    return entry.value;
  }
}
