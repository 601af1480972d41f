import { inject, injectable } from 'tsyringe';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import { LOOKUP_KINDS, type LookupKind } from '../ports/lookup-service.js';
import { USAGE_DAYS_KEPT, type QuotaState, type QuotaStore, type UsageDay } from '../ports/quota-store.js';
import { TOKENS } from '../tokens.js';

const DAY_MS = 86_400_000;

/**
 * Daily quotas on the backend's atomic counters: one counter per key and UTC day, raised only while it
 * is below the limit, in one atomic step of the backend. So 1500 parallel requests against a limit of
 * 1000 let exactly 1000 through, in one process or many sharing the store. Beside it, one counter per
 * key, day and kind keeps the usage history.
 */
@injectable()
export class CounterQuotaStore implements QuotaStore {
  constructor(
    @inject(TOKENS.storeCounters) private readonly counters: CounterStore,
    @inject(TOKENS.clock) private readonly clock: Clock,
  ) {}

  async consume(keyId: string, limit: number, kind: LookupKind): Promise<QuotaState> {
    const day = this.today();
    const used = await this.counters.increment(quotaCounter(keyId, day), {
      ceiling: limit,
      // Kept a day longer than needed, so that a clock a little off never reads a missing counter.
      expiresAt: (day + 2) * DAY_MS,
    });
    if (used === null) return state(false, limit, limit, day);
    await this.counters.increment(usageCounter(keyId, day, kind), { expiresAt: (day + USAGE_DAYS_KEPT + 2) * DAY_MS });
    return state(true, limit, used, day);
  }

  async peek(keyId: string, limit: number): Promise<QuotaState> {
    const day = this.today();
    return state(true, limit, await this.counters.get(quotaCounter(keyId, day)), day);
  }

  async refund(keyId: string, consumed: QuotaState, kind: LookupKind): Promise<void> {
    if (!consumed.allowed) return;
    const day = (consumed.resetAt * 1000) / DAY_MS - 1;
    await this.counters.decrement(quotaCounter(keyId, day));
    await this.counters.decrement(usageCounter(keyId, day, kind));
  }

  async history(keyId: string, days: number): Promise<UsageDay[]> {
    const today = this.today();
    const dayNumbers = Array.from({ length: days }, (_, index) => today - days + 1 + index);
    return Promise.all(
      dayNumbers.map(async (day) => {
        const counts = await Promise.all(LOOKUP_KINDS.map((kind) => this.counters.get(usageCounter(keyId, day, kind))));
        const [dns = 0, whois = 0, ip = 0, ssl = 0] = counts;
        return { date: new Date(day * DAY_MS).toISOString().slice(0, 10), dns, whois, ip, ssl, total: dns + whois + ip + ssl };
      }),
    );
  }

  private today(): number {
    return Math.floor(this.clock.now() / DAY_MS);
  }
}

function quotaCounter(keyId: string, day: number): string {
  return `quota:${keyId}:${day}`;
}

function usageCounter(keyId: string, day: number, kind: LookupKind): string {
  return `usage:${keyId}:${day}:${kind}`;
}

function state(allowed: boolean, limit: number, used: number, day: number): QuotaState {
  return { allowed, limit, remaining: Math.max(0, limit - used), resetAt: ((day + 1) * DAY_MS) / 1000 };
}
