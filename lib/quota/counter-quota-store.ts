import { inject, injectable } from 'tsyringe';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { QuotaState, QuotaStore } from '../ports/quota-store.js';
import { TOKENS } from '../tokens.js';

const DAY_MS = 86_400_000;

/**
 * Daily quotas on the backend's atomic counters: one counter per key and UTC day, raised only while it
 * is below the limit, in one atomic step of the backend. So 1500 parallel requests against a limit of
 * 1000 let exactly 1000 through, in one process or many sharing the store.
 */
@injectable()
export class CounterQuotaStore implements QuotaStore {
  constructor(
    @inject(TOKENS.storeCounters) private readonly counters: CounterStore,
    @inject(TOKENS.clock) private readonly clock: Clock,
  ) {}

  async consume(keyId: string, limit: number): Promise<QuotaState> {
    const day = this.today();
    const used = await this.counters.increment(counterName(keyId, day), {
      ceiling: limit,
      // Kept a day longer than needed, so that a clock a little off never reads a missing counter.
      expiresAt: (day + 2) * DAY_MS,
    });
    return used === null ? state(false, limit, limit, day) : state(true, limit, used, day);
  }

  async peek(keyId: string, limit: number): Promise<QuotaState> {
    const day = this.today();
    return state(true, limit, await this.counters.get(counterName(keyId, day)), day);
  }

  async refund(keyId: string, consumed: QuotaState): Promise<void> {
    if (!consumed.allowed) return;
    const day = (consumed.resetAt * 1000) / DAY_MS - 1;
    await this.counters.decrement(counterName(keyId, day));
  }

  private today(): number {
    return Math.floor(this.clock.now() / DAY_MS);
  }
}

function counterName(keyId: string, day: number): string {
  return `quota:${keyId}:${day}`;
}

function state(allowed: boolean, limit: number, used: number, day: number): QuotaState {
  return { allowed, limit, remaining: Math.max(0, limit - used), resetAt: ((day + 1) * DAY_MS) / 1000 };
}
