import { expect } from 'chai';
import { createContainer, type Composition } from '../../lib/container.js';
import { resolveOptions } from '../../lib/options.js';
import type { AdmissionStore } from '../../lib/ports/admission-store.js';
import type { KeyStore } from '../../lib/ports/key-store.js';
import type { LookupKind } from '../../lib/ports/lookup-service.js';
import type { QuotaStore } from '../../lib/ports/quota-store.js';
import { TOKENS } from '../../lib/tokens.js';
import { CONTRACT_STORE_TIMEOUT_MS, type BackendCase } from './backends.js';

const HOUR = 3_600_000;

interface Opened {
  admissions: AdmissionStore;
  keys: KeyStore;
  quotas: QuotaStore;
  close: Composition['close'];
}

/** The parts of a store URL's backend that the hot path of interface A uses, on an injected clock. */
function open(url: string, now: () => number): Opened {
  const { container, close } = createContainer(
    resolveOptions({ store: url, clock: { now }, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS }),
  );
  return {
    admissions: container.resolve(TOKENS.admissions)!,
    keys: container.resolve(TOKENS.keyStore),
    quotas: container.resolve(TOKENS.quotaStore),
    close,
  };
}

/**
 * The AdmissionStore contract: one atomic step that authenticates and counts exactly as the key store
 * and the quota store would in several steps, and leaves what they read.
 */
export function admissionStoreContract(backend: BackendCase): void {
  describe('AdmissionStore (authenticate and count in one step)', () => {
    let url: string;
    let now: number;
    let store: Opened;
    beforeEach(() => {
      url = backend.url();
      // Near the real time: on Redis, counters expire by the server's clock.
      now = Date.now();
      store = open(url, () => now);
    });
    afterEach(() => store.close());

    it('counts a lookup against the quota and in the usage of its kind, which the quota store reads', async () => {
      const { key, secret } = await store.keys.create({ name: 'a', dailyLimit: 3 });
      const first = await store.admissions.admit(secret, 'dns', 1000);
      expect(first).to.deep.include({ status: 'counted', key });
      expect(first.status === 'counted' && first.quota).to.include({ allowed: true, limit: 3, remaining: 2 });
      await store.admissions.admit(secret, 'whois', 1000);
      expect((await store.quotas.peek(key.id, 3)).remaining).to.equal(1);
      const [today] = await store.quotas.history(key.id, 1);
      expect(today).to.include({ dns: 1, whois: 1, ip: 0, ssl: 0, total: 2 });
    });

    it('refuses past the limit without counting, and applies the default limit to a key without one', async () => {
      const { key, secret } = await store.keys.create({ name: 'a' });
      expect((await store.admissions.admit(secret, 'ip', 2)).status).to.equal('counted');
      expect((await store.admissions.admit(secret, 'ip', 2)).status).to.equal('counted');
      const refused = await store.admissions.admit(secret, 'ip', 2);
      expect(refused.status).to.equal('exceeded');
      expect(refused.status === 'exceeded' && refused.quota).to.include({ allowed: false, limit: 2, remaining: 0 });
      expect((await store.quotas.history(key.id, 1))[0]).to.include({ ip: 2, total: 2 });
    });

    it('refuses unknown and malformed secrets', async () => {
      const { secret } = await store.keys.create({ name: 'a' });
      expect(await store.admissions.admit(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, 'dns', 10)).to.deep.equal({
        status: 'invalid',
      });
      expect(await store.admissions.admit('not a key', 'dns', 10)).to.deep.equal({ status: 'invalid' });
    });

    it('refuses a revoked key, an expired key, and an old secret after its grace, counting nothing', async () => {
      const revoked = await store.keys.create({ name: 'revoked' });
      await store.keys.revoke(revoked.key.id);
      expect((await store.admissions.admit(revoked.secret, 'dns', 10)).status).to.equal('invalid');

      const expiring = await store.keys.create({ name: 'expiring', expiresAt: new Date(now + HOUR).toISOString() });
      expect((await store.admissions.admit(expiring.secret, 'dns', 10)).status).to.equal('counted');
      now += 2 * HOUR;
      expect((await store.admissions.admit(expiring.secret, 'dns', 10)).status).to.equal('invalid');

      const rolled = await store.keys.create({ name: 'rolled' });
      const { secret: newSecret } = await store.keys.roll(rolled.key.id, 60);
      expect((await store.admissions.admit(rolled.secret, 'dns', 10)).status, 'in its grace period').to.equal('counted');
      now += 61_000;
      expect((await store.admissions.admit(rolled.secret, 'dns', 10)).status, 'after its grace period').to.equal('invalid');
      expect((await store.admissions.admit(newSecret, 'dns', 10)).status).to.equal('counted');
      expect((await store.quotas.history(rolled.key.id, 1))[0]!.total).to.equal(2);
    });

    it('refuses a key without the lookup scope, counting nothing', async () => {
      const { key, secret } = await store.keys.create({ name: 'docs', scopes: ['documents'] });
      const answer = await store.admissions.admit(secret, 'ssl', 10);
      expect(answer.status).to.equal('no-scope');
      expect(answer.status === 'no-scope' && answer.quota).to.include({ limit: 10, remaining: 10 });
      expect((await store.quotas.history(key.id, 1))[0]!.total).to.equal(0);
    });

    it('sees a limit changed by the key store at its next admission', async () => {
      const { key, secret } = await store.keys.create({ name: 'a', dailyLimit: 1 });
      expect((await store.admissions.admit(secret, 'dns', 10)).status).to.equal('counted');
      expect((await store.admissions.admit(secret, 'dns', 10)).status).to.equal('exceeded');
      await store.keys.update(key.id, { dailyLimit: 2 });
      expect((await store.admissions.admit(secret, 'dns', 10)).status).to.equal('counted');
    });

    it('admits exactly 1000 of 1500 parallel lookups against a limit of 1000', async () => {
      const { key, secret } = await store.keys.create({ name: 'a', dailyLimit: 1000 });
      const answers = await Promise.all(Array.from({ length: 1500 }, () => store.admissions.admit(secret, 'dns', 10)));
      expect(answers.filter((answer) => answer.status === 'counted')).to.have.length(1000);
      expect(answers.filter((answer) => answer.status === 'exceeded')).to.have.length(500);
      expect((await store.quotas.history(key.id, 1))[0]!.dns).to.equal(1000);
    });

    it('counts the admissions of one turn in the order asked, per key and per kind, the secrets of a rolled key on one quota', async () => {
      const hot = await store.keys.create({ name: 'hot', dailyLimit: 4 });
      const cold = await store.keys.create({ name: 'cold', dailyLimit: 10 });
      const old = await store.keys.create({ name: 'rolled', dailyLimit: 2 });
      const rolled = await store.keys.roll(old.key.id, 3600);
      const turn = (asked: (readonly [string, LookupKind])[]): Promise<string[]> =>
        Promise.all(asked.map(([secret, kind]) => store.admissions.admit(secret, kind, 1000))).then((answers) =>
          answers.map((answer) =>
            answer.status === 'counted' || answer.status === 'exceeded'
              ? `${answer.key.name} ${answer.status} ${answer.quota.limit - answer.quota.remaining}`
              : answer.status,
          ),
        );
      expect(
        await turn([
          [hot.secret, 'dns'],
          [rolled.secret, 'whois'],
          [cold.secret, 'ip'],
          [hot.secret, 'whois'],
          ['dsr_not_a_key', 'dns'],
          [old.secret, 'ssl'],
          [hot.secret, 'ssl'],
          [rolled.secret, 'dns'],
          [hot.secret, 'whois'],
          [hot.secret, 'dns'],
          [cold.secret, 'ip'],
        ]),
      ).to.deep.equal([
        'hot counted 1',
        'rolled counted 1',
        'cold counted 1',
        'hot counted 2',
        'invalid',
        'rolled counted 2',
        'hot counted 3',
        'rolled exceeded 2',
        'hot counted 4',
        'hot exceeded 4',
        'cold counted 2',
      ]);
      const history = async (id: string) => (await store.quotas.history(id, 1))[0];
      expect(await history(hot.key.id)).to.include({ dns: 1, whois: 2, ip: 0, ssl: 1, total: 4 });
      expect(await history(cold.key.id)).to.include({ ip: 2, total: 2 });
      expect(await history(old.key.id)).to.include({ whois: 1, ssl: 1, dns: 0, total: 2 });

      // A later turn goes on from the stored counts, under the limit as it is now.
      await store.keys.update(hot.key.id, { dailyLimit: 6 });
      expect(
        await turn([
          [hot.secret, 'ip'],
          [hot.secret, 'dns'],
          [hot.secret, 'ip'],
          [cold.secret, 'dns'],
        ]),
      ).to.deep.equal(['hot counted 5', 'hot counted 6', 'hot exceeded 6', 'cold counted 3']);
      expect(await history(hot.key.id)).to.include({ dns: 2, whois: 2, ip: 1, ssl: 1, total: 6 });
    });

    if (backend.shared) {
      it('stays exact across two instances sharing the store, and a revoke on one is refused by the other at once', async () => {
        const other = open(url, () => now);
        try {
          const { key, secret } = await store.keys.create({ name: 'shared', dailyLimit: 1000 });
          const answers = await Promise.all(
            Array.from({ length: 1500 }, (_, i) => (i % 2 ? other : store).admissions.admit(secret, 'dns', 10)),
          );
          expect(answers.filter((answer) => answer.status === 'counted')).to.have.length(1000);
          expect((await other.quotas.peek(key.id, 1000)).remaining).to.equal(0);

          const live = await store.keys.create({ name: 'live' });
          expect((await other.admissions.admit(live.secret, 'dns', 10)).status).to.equal('counted');
          await store.keys.revoke(live.key.id);
          expect((await other.admissions.admit(live.secret, 'dns', 10)).status).to.equal('invalid');
        } finally {
          await other.close();
        }
      });
    }
  });
}
