import { expect } from 'chai';
import { createDossier, type Dossier } from '../../../lib/dossier.js';
import { DossierError } from '../../../lib/errors.js';
import type { ApiKey } from '../../../lib/ports/key-store.js';
import type { LookupKind, LookupOptions, LookupResult, LookupService } from '../../../lib/ports/lookup-service.js';
import type { QuotaState, QuotaStore } from '../../../lib/ports/quota-store.js';
import type { BatchItemOutcome, BatchRules } from '../../../lib/ports/metering.js';
import { runBatch } from '../../../lib/quota/batch.js';
import type { BatchItemRequest } from '../../../lib/ports/metering.js';

const KEY: ApiKey = {
  id: 'key_batch_unit',
  name: 'unit',
  owner: 'o',
  scopes: ['lookup'],
  dailyLimit: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  revokedAt: null,
  expiresAt: null,
};

/** A lookup service that answers every valid query at once and records how it was asked. */
class RecordingLookups implements LookupService {
  readonly calls: { kind: LookupKind; target: string; options: LookupOptions | undefined }[] = [];
  parse(kind: LookupKind, input: unknown): string {
    if (typeof input !== 'string' || input.startsWith('bad'))
      throw new DossierError('ERR_LOOKUP_INVALID_DOMAIN', `${String(input)} is not a domain.`);
    return input.toLowerCase();
  }
  async lookup(kind: LookupKind, input: unknown, options?: LookupOptions): Promise<LookupResult<never>> {
    const target = this.parse(kind, input);
    this.calls.push({ kind, target, options });
    return { data: { target } as never, cached: false };
  }
}

/** A quota store that fails from its `failFrom`-th consume on (1-based). */
function failingFrom(quotas: QuotaStore, failFrom: number): QuotaStore {
  let consumed = 0;
  return {
    ...quotas,
    consume: async (...args) => {
      consumed += 1;
      if (consumed >= failFrom) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store is down.');
      return quotas.consume(...args);
    },
    peek: (...args) => quotas.peek(...args),
    refund: (...args) => quotas.refund(...args),
    history: (...args) => quotas.history(...args),
  };
}

const item = (query: string, fresh = false): BatchItemRequest => ({ kind: 'dns', query, fresh });

describe('runBatch', () => {
  let dossier: Dossier;
  let lookups: RecordingLookups;
  let keyId: number;
  beforeEach(() => {
    dossier = createDossier({ store: 'memory://', cache: 'memory://' });
    lookups = new RecordingLookups();
    keyId = Math.floor(Math.random() * 1e9);
  });
  afterEach(() => dossier.close());

  function rules(quotas: QuotaStore = dossier.quotas): BatchRules {
    return {
      quotas,
      lookups,
      quotaExceeded: (quota: QuotaState) => dossier.metering.quotaExceeded(quota),
      refund: async (key, quota, kind) => {
        await quotas.refund(key.id, quota, kind);
        return quota;
      },
      peek: (key) => quotas.peek(key.id, 10),
    };
  }
  const key = (): ApiKey => ({ ...KEY, id: `${KEY.id}_${keyId}` });

  it('passes "fresh" on to the lookup service, and shares one query only among items asked alike', async () => {
    const outcome = await runBatch(rules(), key(), 10, [
      item('a.test', true),
      item('A.test', true),
      item('a.test'),
      item('a.test', false),
    ]);
    expect(outcome.ok).to.equal(true);
    if (!outcome.ok) return;
    const { items } = await outcome.value.done;
    expect(items.map((result) => result.ok)).to.deep.equal([true, true, true, true]);
    expect(lookups.calls).to.deep.equal([
      { kind: 'dns', target: 'a.test', options: { fresh: true } },
      { kind: 'dns', target: 'a.test', options: { fresh: false } },
    ]);
    expect(outcome.quota.remaining).to.equal(6);
  });

  it('reports no item of a batch refused whole, not even its invalid ones', async () => {
    const reported: number[] = [];
    for (let used = 0; used < 2; used += 1) await dossier.quotas.consume(key().id, 2, 'dns');
    const outcome = await runBatch(rules(), key(), 2, [item('bad'), item('a.test')], { onItem: (index) => reported.push(index) });
    expect(outcome.ok).to.equal(false);
    if (outcome.ok) return;
    expect(outcome.error.code).to.equal('ERR_QUOTA_EXCEEDED');
    expect(outcome.quota?.remaining).to.equal(0);
    expect(reported).to.deep.equal([]);
    expect(lookups.calls).to.deep.equal([]);
  });

  it('reports each item once, as it is ready', async () => {
    const reported: [number, BatchItemOutcome][] = [];
    const outcome = await runBatch(rules(), key(), 10, [item('bad'), item('a.test'), item('b.test')], {
      onItem: (index, result) => reported.push([index, result]),
    });
    if (!outcome.ok) throw outcome.error;
    await outcome.value.done;
    expect(reported.map(([index]) => index).sort()).to.deep.equal([0, 1, 2]);
    expect(reported.find(([index]) => index === 0)?.[1]).to.deep.include({ ok: false, query: 'bad' });
  });

  it('refuses the whole batch when the store fails on its first unit', async () => {
    const outcome = await runBatch(rules(failingFrom(dossier.quotas, 1)), key(), 10, [item('a.test'), item('b.test')]);
    expect(outcome.ok).to.equal(false);
    if (outcome.ok) return;
    expect(outcome.error.code).to.equal('ERR_STORE_UNAVAILABLE');
    expect(outcome.quota).to.equal(null);
  });

  it('fails the remaining items, without asking the store again, when it fails later', async () => {
    const quotas = failingFrom(dossier.quotas, 2);
    const outcome = await runBatch(rules(quotas), key(), 10, [item('a.test'), item('b.test'), item('bad'), item('c.test')]);
    if (!outcome.ok) throw outcome.error;
    const { items } = await outcome.value.done;
    expect(items.map((result) => (result.ok ? 'ok' : result.error.code))).to.deep.equal([
      'ok',
      'ERR_STORE_UNAVAILABLE',
      'ERR_LOOKUP_INVALID_DOMAIN',
      'ERR_STORE_UNAVAILABLE',
    ]);
    expect(lookups.calls.map((call) => call.target)).to.deep.equal(['a.test']);
  });
});
