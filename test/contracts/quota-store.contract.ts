import { expect } from 'chai';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { uniqueName, type BackendCase, CONTRACT_STORE_TIMEOUT_MS } from './backends.js';

const DAY = 86_400_000;

/** The QuotaStore contract: UTC days, exact under concurrency, refunds on the right day. */
export function quotaStoreContract(backend: BackendCase): void {
  describe('QuotaStore', () => {
    let url: string;
    let now: number;
    let dossier: Dossier;
    beforeEach(() => {
      url = backend.url();
      now = Date.UTC(2026, 10, 22, 23, 59, 59, 500);
      dossier = createDossier({ store: url, clock: { now: () => now }, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
    });
    afterEach(() => dossier.close());

    it('counts down to zero, then refuses, with the next UTC midnight as reset', async () => {
      const key = uniqueName('k');
      const first = await dossier.quotas.consume(key, 2, 'dns');
      expect(first).to.deep.equal({ allowed: true, limit: 2, remaining: 1, resetAt: Date.UTC(2026, 10, 23) / 1000 });
      expect((await dossier.quotas.consume(key, 2, 'dns')).remaining).to.equal(0);
      expect(await dossier.quotas.consume(key, 2, 'dns')).to.include({ allowed: false, remaining: 0 });
      expect(await dossier.quotas.peek(key, 2)).to.include({ remaining: 0 });
    });

    it('starts again at UTC midnight (injected clock)', async () => {
      const key = uniqueName('k');
      await dossier.quotas.consume(key, 1, 'dns');
      expect((await dossier.quotas.consume(key, 1, 'dns')).allowed).to.equal(false);
      now += 1000;
      const next = await dossier.quotas.consume(key, 1, 'dns');
      expect(next).to.deep.equal({ allowed: true, limit: 1, remaining: 0, resetAt: Date.UTC(2026, 10, 24) / 1000 });
    });

    it('refunds the day a request was counted on, even after midnight', async () => {
      const key = uniqueName('k');
      const counted = await dossier.quotas.consume(key, 3, 'dns');
      now += DAY;
      await dossier.quotas.consume(key, 3, 'dns');
      await dossier.quotas.refund(key, counted, 'dns');
      expect((await dossier.quotas.peek(key, 3)).remaining).to.equal(2);
      now -= DAY;
      expect((await dossier.quotas.peek(key, 3)).remaining).to.equal(3);
    });

    it('keeps a count by the injected clock, far from the store clock (Redis is told how long, not until when)', async () => {
      for (const instant of [Date.UTC(2001, 0, 1, 12), Date.UTC(2101, 0, 1, 12)]) {
        now = instant;
        const key = uniqueName('k');
        expect((await dossier.quotas.consume(key, 1, 'dns')).allowed).to.equal(true);
        expect((await dossier.quotas.consume(key, 1, 'dns')).allowed).to.equal(false);
        expect(await dossier.quotas.peek(key, 1)).to.include({ remaining: 0 });
      }
    });

    it('gives exactly 1000 of 1500 parallel requests against a limit of 1000', async () => {
      const key = uniqueName('k');
      const states = await Promise.all(Array.from({ length: 1500 }, () => dossier.quotas.consume(key, 1000, 'dns')));
      expect(states.filter((state) => state.allowed)).to.have.length(1000);
      expect(states.every((state) => state.remaining >= 0)).to.equal(true);
      expect((await dossier.quotas.peek(key, 1000)).remaining).to.equal(0);
    });

    it('keeps each counted lookup by day and kind, gives refunds back, and lists every day oldest first', async () => {
      const key = uniqueName('k');
      await dossier.quotas.consume(key, 10, 'whois');
      now += DAY;
      const counted = await dossier.quotas.consume(key, 10, 'ip');
      await dossier.quotas.consume(key, 10, 'ip');
      await dossier.quotas.consume(key, 10, 'ssl');
      await dossier.quotas.refund(key, counted, 'ip');
      const history = await dossier.quotas.history(key, 3);
      expect(history).to.deep.equal([
        { date: '2026-11-21', dns: 0, whois: 0, ip: 0, ssl: 0, total: 0 },
        { date: '2026-11-22', dns: 0, whois: 1, ip: 0, ssl: 0, total: 1 },
        { date: '2026-11-23', dns: 0, whois: 0, ip: 1, ssl: 1, total: 2 },
      ]);
    });

    it('records nothing for a lookup refused past the limit', async () => {
      const key = uniqueName('k');
      await dossier.quotas.consume(key, 1, 'dns');
      expect((await dossier.quotas.consume(key, 1, 'dns')).allowed).to.equal(false);
      expect((await dossier.quotas.history(key, 1))[0]).to.include({ dns: 1, total: 1 });
    });

    it('keeps usage for 90 days', async () => {
      const key = uniqueName('k');
      await dossier.quotas.consume(key, 10, 'dns');
      now += 89 * DAY;
      const history = await dossier.quotas.history(key, 90);
      expect(history).to.have.length(90);
      expect(history[0]).to.include({ date: '2026-11-22', dns: 1 });
    });

    if (backend.shared) {
      it('stays exact across two instances sharing the store', async () => {
        const other = createDossier({ store: url, clock: { now: () => now }, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
        try {
          const key = uniqueName('k');
          const states = await Promise.all(
            Array.from({ length: 1500 }, (_, i) => (i % 2 ? other : dossier).quotas.consume(key, 1000, 'dns')),
          );
          expect(states.filter((state) => state.allowed)).to.have.length(1000);
        } finally {
          await other.close();
        }
      });
    }
  });
}
