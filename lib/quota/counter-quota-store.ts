import { inject, injectable } from 'tsyringe';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import { LOOKUP_KINDS, type LookupKind } from '../ports/lookup-service.js';
import { type QuotaState, type QuotaStore, type UsageDay } from '../ports/quota-store.js';
import { TOKENS } from '../tokens.js';
import { DAY_MS, quotaCounter, quotaState, usageCounter, usageExpiry, quotaExpiry } from '../records/quota-counters.js';

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
    const used = await this.counters.increment(quotaCounter(keyId, day), { ceiling: limit, expiresAt: quotaExpiry(day) });
    if (used === null) return quotaState(false, limit, limit, day);
    await this.counters.increment(usageCounter(keyId, day, kind), { expiresAt: usageExpiry(day) });
    return quotaState(true, limit, used, day);
  }

  async peek(keyId: string, limit: number): Promise<QuotaState> {
    const day = this.today();
    return quotaState(true, limit, await this.counters.get(quotaCounter(keyId, day)), day);
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
    // Every day's counter of every kind, in one call of the store.
    const counts = await this.counters.getMany(
      dayNumbers.flatMap((day) => LOOKUP_KINDS.map((kind) => usageCounter(keyId, day, kind))),
    );
    return dayNumbers.map((day, index) => {
      const [dns = 0, whois = 0, ip = 0, ssl = 0] = counts.slice(index * LOOKUP_KINDS.length, (index + 1) * LOOKUP_KINDS.length);
      return { date: new Date(day * DAY_MS).toISOString().slice(0, 10), dns, whois, ip, ssl, total: dns + whois + ip + ssl };
    });
  }

  private today(): number {
    return Math.floor(this.clock.now() / DAY_MS);
  }
}
