import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { isDossierError, type DossierValidationError } from '../../lib/errors.js';
import { listKeys } from '../../lib/internal.js';
import { KeyvKeyStore } from '../../lib/keys/keyv-key-store.js';
import { RecordKeyStore } from '../../lib/keys/record-key-store.js';
import type { ApiKey, KeyStore } from '../../lib/ports/key-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { AppendOnlyIndex } from '../../lib/stores/shared/append-only-index.js';
import { CONTRACT_STORE_TIMEOUT_MS, uniqueName, type BackendCase } from './backends.js';

/** The ids of `keys` in the list's order: the latest created first, then the greater id (keys made in one ms). */
function newestFirst(keys: ApiKey[]): string[] {
  return [...keys]
    .sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1))
    .map((key) => key.id);
}

/** Every page of a list, following `nextCursor` from the first, as the admin API gives them. */
async function allPages(keys: KeyStore, query: Record<string, string>, now: number): Promise<ApiKey[][]> {
  const pages: ApiKey[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listKeys(keys, { ...query, ...(cursor && { cursor }) }, now);
    pages.push(page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

/** The KeyStore contract: secrets shown once and stored as digests; revocation at once. */
export function keyStoreContract(backend: BackendCase): void {
  describe('KeyStore', () => {
    let url: string;
    let dossier: Dossier;
    beforeEach(() => {
      url = backend.url();
      dossier = createDossier({ store: url, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
    });
    afterEach(() => dossier.close());

    it('creates a key with at least 128 random bits that verifies to its record', async () => {
      const { key, secret } = await dossier.keys.create({ name: 'alice', owner: 'acct-1', scopes: ['lookup'], dailyLimit: 5 });
      expect(secret).to.match(/^dsr_[A-Za-z0-9_-]{43}$/);
      expect(key).to.include({ name: 'alice', owner: 'acct-1', dailyLimit: 5, revokedAt: null });
      expect(key.scopes).to.deep.equal(['lookup']);
      expect(new Date(key.createdAt).toISOString()).to.equal(key.createdAt);
      expect(await dossier.keys.verify(secret)).to.deep.equal(key);
      const other = await dossier.keys.create({ name: 'bob' });
      expect(other.secret).to.not.equal(secret);
      expect(other.key.scopes).to.deep.equal(['lookup', 'documents']);
      expect(other.key.owner).to.not.equal(key.owner);
    });

    it('refuses unknown secrets and a near miss of a real one', async () => {
      const { secret } = await dossier.keys.create({ name: 'alice' });
      expect(await dossier.keys.verify(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`)).to.equal(null);
      expect(await dossier.keys.verify('')).to.equal(null);
      expect(await dossier.keys.verify('not a key')).to.equal(null);
    });

    it('lists every key it created, with no secret in any record', async () => {
      const created = await Promise.all(['a', 'b', 'c'].map((name) => dossier.keys.create({ name })));
      const listed = await dossier.keys.list();
      const ids = listed.map((key) => key.id);
      for (const { key, secret } of created) {
        expect(ids).to.include(key.id);
        const serialized = JSON.stringify(listed);
        expect(serialized).to.not.include(secret);
        expect(serialized).to.not.include(createHash('sha256').update(secret).digest('hex'));
      }
    });

    it('revokes a key at once, idempotently', async () => {
      const { key, secret } = await dossier.keys.create({ name: 'alice' });
      const revoked = await dossier.keys.revoke(key.id);
      expect(revoked.revokedAt).to.be.a('string');
      expect(await dossier.keys.verify(secret)).to.equal(null);
      expect((await dossier.keys.revoke(key.id)).revokedAt).to.equal(revoked.revokedAt);
      const error = await dossier.keys.revoke('key_missing').catch((e: unknown) => e);
      expect(isDossierError(error, 'ERR_KEY_NOT_FOUND')).to.equal(true);
    });

    it('fails every call with ERR_STORE_UNAVAILABLE once closed, instead of opening the store again', async () => {
      const { secret, key } = await dossier.keys.create({ name: 'alice' });
      await dossier.close();
      const calls: [string, () => Promise<unknown>][] = [
        ['keys.verify', () => dossier.keys.verify(secret)],
        ['keys.list', () => dossier.keys.list()],
        ['quotas.consume', () => dossier.quotas.consume(key.id, 5, 'dns')],
        ['documents.list', () => dossier.documents.list(key.owner, {})],
      ];
      for (const [name, call] of calls) {
        const failure = await call().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(isDossierError(failure, 'ERR_STORE_UNAVAILABLE'), name).to.equal(true);
      }
    });

    it('rejects bad names, owners, scopes and limits with ERR_KEY_INVALID', async () => {
      for (const input of [
        { name: '' },
        { name: 'x'.repeat(129) },
        { name: 'a', owner: 'bad owner' },
        { name: 'a', dailyLimit: 0 },
        { name: 'a', dailyLimit: -1 },
      ]) {
        const error = await dossier.keys.create(input).catch((e: unknown) => e);
        expect(isDossierError(error, 'ERR_KEY_INVALID'), JSON.stringify(input)).to.equal(true);
      }
      const error = await dossier.keys.create({ name: 'a', scopes: ['admin' as 'lookup'] }).catch((e: unknown) => e);
      expect(isDossierError(error, 'ERR_KEY_INVALID')).to.equal(true);
    });

    describe('lifecycle', () => {
      let now: number;
      let timed: Dossier;
      beforeEach(() => {
        now = Date.UTC(2026, 10, 23, 12);
        timed = createDossier({ store: url, clock: { now: () => now } });
      });
      afterEach(() => timed.close());

      it('refuses a key from its expiry on, and says it expired', async () => {
        const { key, secret } = await timed.keys.create({ name: 'temp', expiresAt: '2026-11-24' });
        expect(key.expiresAt).to.equal('2026-11-24T00:00:00.000Z');
        expect((await timed.keys.verify(secret))?.id).to.equal(key.id);
        now = Date.UTC(2026, 10, 24);
        expect(await timed.keys.verify(secret)).to.equal(null);
        expect((await timed.metering.report(await timed.keys.get(key.id))).status).to.equal('expired');
      });

      it('refuses an expiry in the past or that is not a date, and keeps the key as it was', async () => {
        const { key } = await timed.keys.create({ name: 'k' });
        for (const expiresAt of ['2026-11-23T11:59:59Z', '2026-02-30', 'tomorrow', '2026-11-24T25:00:00Z']) {
          const error = await timed.keys.create({ name: 'k', expiresAt }).catch((e: unknown) => e);
          expect(isDossierError(error, 'ERR_KEY_INVALID'), expiresAt).to.equal(true);
          const updateError = await timed.keys.update(key.id, { expiresAt }).catch((e: unknown) => e);
          expect(isDossierError(updateError, 'ERR_KEY_INVALID'), expiresAt).to.equal(true);
        }
        expect(await timed.keys.get(key.id)).to.deep.equal(key);
      });

      it('changes name, scopes, limit and expiry, and only what is given', async () => {
        const { key, secret } = await timed.keys.create({ name: 'before', dailyLimit: 5 });
        const changed = await timed.keys.update(key.id, {
          name: 'after',
          scopes: ['lookup'],
          expiresAt: '2027-01-01T00:00:00+01:00',
        });
        expect(changed).to.deep.equal({ ...key, name: 'after', scopes: ['lookup'], expiresAt: '2026-12-31T23:00:00.000Z' });
        expect(await timed.keys.verify(secret)).to.deep.equal(changed);
        expect(await timed.keys.update(key.id, { dailyLimit: null })).to.include({ dailyLimit: null, name: 'after' });
        const error = await timed.keys.update('key_missing', { name: 'x' }).catch((e: unknown) => e);
        expect(isDossierError(error, 'ERR_KEY_NOT_FOUND')).to.equal(true);
      });

      it('rolls a secret: the old one works during its grace period only, the key stays one key', async () => {
        const { key, secret: old } = await timed.keys.create({ name: 'rolled' });
        const { key: same, secret } = await timed.keys.roll(key.id, 60);
        expect(same).to.deep.equal(key);
        expect(secret).to.not.equal(old);
        expect((await timed.keys.verify(old))?.id).to.equal(key.id);
        expect((await timed.keys.verify(secret))?.id).to.equal(key.id);
        expect((await timed.keys.list()).filter((k) => k.id === key.id)).to.have.length(1);
        now += 60_000;
        expect(await timed.keys.verify(old)).to.equal(null);
        expect((await timed.keys.verify(secret))?.id).to.equal(key.id);
      });

      it('stops the old secret at once without a grace period, and revokes every secret of a key', async () => {
        const { key, secret: first } = await timed.keys.create({ name: 'rolled' });
        const { secret: second } = await timed.keys.roll(key.id);
        expect(await timed.keys.verify(first)).to.equal(null);
        const { secret: third } = await timed.keys.roll(key.id, 3600);
        await timed.keys.update(key.id, { name: 'renamed' });
        expect((await timed.keys.verify(second))?.name).to.equal('renamed');
        await timed.keys.revoke(key.id);
        expect(await timed.keys.verify(second)).to.equal(null);
        expect(await timed.keys.verify(third)).to.equal(null);
        const error = await timed.keys.roll(key.id, -1).catch((e: unknown) => e);
        expect(isDossierError(error, 'ERR_KEY_INVALID')).to.equal(true);
      });

      it('refuses to roll a revoked or expired key, whose new secret could not work, and writes nothing', async () => {
        const { key: revoked, secret: revokedSecret } = await timed.keys.create({ name: 'revoked' });
        await timed.keys.revoke(revoked.id);
        const { key: expiring } = await timed.keys.create({ name: 'expiring', expiresAt: '2026-11-24' });
        now = Date.UTC(2026, 10, 24);
        for (const [key, status] of [
          [revoked, 'revoked'],
          [expiring, 'expired'],
        ] as const) {
          const before = await timed.keys.get(key.id);
          const error = await timed.keys.roll(key.id).catch((e: unknown) => e);
          expect(isDossierError(error, 'ERR_KEY_INACTIVE'), status).to.equal(true);
          expect((error as DossierValidationError).errors).to.deep.equal({
            id: [`The key is ${status}, so it cannot be rolled; create a new key instead.`],
          });
          expect(await timed.keys.get(key.id)).to.deep.equal(before);
        }
        expect(await timed.keys.verify(revokedSecret)).to.equal(null);
      });
    });

    describe('the paged list', () => {
      it('pages newest first by cursor both ways, each filter and a search read with an exact total', async () => {
        const owner = uniqueName('acct');
        const token = uniqueName('Needle').toLowerCase();
        const made: ApiKey[] = [];
        for (let n = 0; n < 7; n += 1) {
          const input = {
            name: n % 3 === 0 ? `k${n} ${token.toUpperCase()}` : `k${n}`,
            owner,
            ...(n === 5 && { scopes: ['lookup' as const] }),
          };
          made.push((await dossier.keys.create(input)).key);
        }
        await dossier.keys.revoke(made[1]!.id);
        await dossier.keys.revoke(made[2]!.id);
        const now = Date.now();
        const order = newestFirst(made);
        const pages = await allPages(dossier.keys, { owner, limit: '3' }, now);
        expect(pages.map((page) => page.map((key) => key.id))).to.deep.equal([
          order.slice(0, 3),
          order.slice(3, 6),
          order.slice(6),
        ]);
        const second = await listKeys(
          dossier.keys,
          { owner, limit: '3', cursor: (await listKeys(dossier.keys, { owner, limit: '3' }, now)).nextCursor! },
          now,
        );
        expect(second).to.include({ total: 7 });
        const back = await listKeys(dossier.keys, { owner, limit: '3', before: second.previousCursor! }, now);
        expect(back.items.map((key) => key.id)).to.deep.equal(order.slice(0, 3));
        expect(back.previousCursor).to.equal(null);
        const count = async (query: Record<string, string>): Promise<[number, string[]]> => {
          const page = await listKeys(dossier.keys, { limit: '500', ...query }, now);
          return [page.total, page.items.map((key) => key.id)];
        };
        expect(await count({ owner, status: 'revoked' })).to.deep.equal([2, newestFirst([made[1]!, made[2]!])]);
        expect((await count({ owner, status: 'active' }))[0]).to.equal(5);
        expect(await count({ owner, status: 'expired' })).to.deep.equal([0, []]);
        expect((await count({ owner, scope: 'documents' }))[0]).to.equal(6);
        expect(await count({ search: token })).to.deep.equal([3, newestFirst([made[0]!, made[3]!, made[6]!])]);
        expect(await count({ search: token.toUpperCase().toLowerCase(), status: 'active' })).to.deep.equal([
          3,
          newestFirst([made[0]!, made[3]!, made[6]!]),
        ]);
        expect((await count({ search: owner.slice(2).toUpperCase().toLowerCase() }))[0]).to.equal(7);
        expect((await count({ search: made[4]!.id }))[1]).to.deep.equal([made[4]!.id]);
        // What LIKE, FTS5 or a Lua pattern would read as syntax is text like any other; a needle too short for trigrams too.
        const odd = (await dossier.keys.create({ name: `50% "OFF"_x ${token}`, owner })).key;
        for (const needle of ['% "o', '"off"_', '0%', 'x']) {
          expect((await count({ owner, search: needle }))[1], needle).to.deep.equal([odd.id]);
        }
        expect((await count({ owner, search: '%"' }))[0]).to.equal(0);
        expect((await count({ owner, search: `${token}\n${owner}` }))[0], 'across two fields').to.equal(0);
        // A renamed key is found by its new name, and no longer by its old (the search's index follows the name).
        const renamed = uniqueName('Renamed').toLowerCase();
        await dossier.keys.update(odd.id, { name: `now ${renamed}` });
        expect(await count({ search: renamed })).to.deep.equal([1, [odd.id]]);
        expect(await count({ owner, search: '"off"_' })).to.deep.equal([0, []]);
        expect(await count({ owner, search: renamed.slice(1, 9), status: 'active', scope: 'lookup' })).to.deep.equal([
          1,
          [odd.id],
        ]);
        // The whole list's total is every key there is.
        expect((await listKeys(dossier.keys, { limit: '1' }, now)).total).to.equal((await dossier.keys.list()).length);
      });

      it('pages a search by cursor both ways with its exact total, for a needle of three characters and a longer one', async () => {
        // Three characters no other key holds (the store is shared), and a fourth: a needle of one trigram
        // and one of two, and a key holding both trigrams of the longer one apart, which it must not find.
        const [a, b, c, d] = Array.from({ length: 4 }, () => String.fromCodePoint(0x4e00 + Math.floor(Math.random() * 20_000)));
        const [short, long] = [`${a}${b}${c}`, `${a}${b}${c}${d}`];
        const [owner, other] = [uniqueName('acct'), uniqueName('acct')];
        const made: ApiKey[] = [];
        for (const [name, of] of [
          [`k0 ${long}`, owner],
          [`k1 ${short}`, owner],
          [`k2 ${long}!`, other],
          [`k3 ${short} ${b}${c}${d}`, owner],
          [`k4 x${long}`, owner],
          ['k5 none yet', owner],
          [`k6 ${long}`, other],
          [`k7 ${short}`, owner],
        ] as const) {
          made.push((await dossier.keys.create({ name, owner: of })).key);
        }
        await dossier.keys.revoke(made[4]!.id);
        await dossier.keys.update(made[5]!.id, { name: `k5 now ${long}` });
        await dossier.keys.update(made[7]!.id, { name: 'k7 renamed away' });
        const now = Date.now();
        const ids = (...n: number[]): string[] => newestFirst(n.map((i) => made[i]!));
        const found = async (query: Record<string, string>): Promise<[number, string[]]> => {
          const pages = await allPages(dossier.keys, { limit: '2', ...query }, now);
          const first = await listKeys(dossier.keys, { limit: '2', ...query }, now);
          return [first.total, pages.flat().map((key) => key.id)];
        };
        expect(await found({ search: short })).to.deep.equal([7, ids(0, 1, 2, 3, 4, 5, 6)]);
        expect(await found({ search: long })).to.deep.equal([5, ids(0, 2, 4, 5, 6)]);
        expect(await found({ search: short, owner })).to.deep.equal([5, ids(0, 1, 3, 4, 5)]);
        expect(await found({ search: long, owner: other })).to.deep.equal([2, ids(2, 6)]);
        expect(await found({ search: short, status: 'revoked' })).to.deep.equal([1, ids(4)]);
        expect(await found({ search: long, status: 'active', owner })).to.deep.equal([2, ids(0, 5)]);
        expect(await found({ search: `${b}${c}${d}`, scope: 'lookup' })).to.deep.equal([6, ids(0, 2, 3, 4, 5, 6)]);
        expect(await found({ search: 'k7 renamed away', owner })).to.deep.equal([1, ids(7)]);
        // Back from the third page of the longer needle's: the second, then the first, which has none before it.
        const pages: Awaited<ReturnType<typeof listKeys>>[] = [await listKeys(dossier.keys, { limit: '2', search: long }, now)];
        for (let n = 1; n < 3; n += 1) {
          pages.push(await listKeys(dossier.keys, { limit: '2', search: long, cursor: pages.at(-1)!.nextCursor! }, now));
        }
        expect(pages.map((page) => [page.total, page.items.length])).to.deep.equal([
          [5, 2],
          [5, 2],
          [5, 1],
        ]);
        const second = await listKeys(dossier.keys, { limit: '2', search: long, before: pages[2]!.previousCursor! }, now);
        expect(second.items.map((key) => key.id)).to.deep.equal(pages[1]!.items.map((key) => key.id));
        const back = await listKeys(dossier.keys, { limit: '2', search: long, before: second.previousCursor! }, now);
        expect(back.items.map((key) => key.id)).to.deep.equal(ids(0, 2, 4, 5, 6).slice(0, 2));
        expect(back.previousCursor).to.equal(null);
      });

      it('keeps a cursor on its place while keys are created meanwhile', async () => {
        let now = Date.UTC(2026, 10, 23, 12);
        const ticking = createDossier({ store: url, clock: { now: () => now }, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
        try {
          const owner = uniqueName('acct');
          const made: ApiKey[] = [];
          for (let n = 0; n < 6; n += 1) {
            now += 1;
            made.push((await ticking.keys.create({ name: `k${n}`, owner })).key);
          }
          const first = await listKeys(ticking.keys, { owner, limit: '2' }, now);
          now += 1;
          const later = await Promise.all(Array.from({ length: 5 }, (_, n) => ticking.keys.create({ name: `new${n}`, owner })));
          const rest: string[] = [];
          for (let cursor = first.nextCursor; cursor !== null;) {
            const page = await listKeys(ticking.keys, { owner, limit: '2', cursor }, now);
            expect(page.total).to.equal(11);
            rest.push(...page.items.map((key) => key.id));
            cursor = page.nextCursor;
          }
          expect([...first.items.map((key) => key.id), ...rest]).to.deep.equal(newestFirst(made));
          const top = await listKeys(ticking.keys, { owner, limit: '5' }, now);
          expect(top.items.map((key) => key.id)).to.deep.equal(newestFirst(later.map(({ key }) => key)));
        } finally {
          await ticking.close();
        }
      });
    });

    describe('sessions', () => {
      let now: number;
      let timed: Dossier;
      beforeEach(() => {
        now = Date.now();
        timed = createDossier({ store: url, clock: { now: () => now }, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
      });
      afterEach(() => timed.close());

      it('takes a right try back and forgets the wrong ones before it; the fifth wrong try in a minute locks for a minute', async () => {
        const sessions = timed.adminSessions;
        const address = uniqueName('192.0.2');
        const wrong = () => sessions.attempt(address, () => false);
        for (let i = 0; i < 4; i++) expect(await wrong()).to.deep.equal({ outcome: 'wrong', nowLocked: false });
        expect(await sessions.attempt(address, () => true)).to.deep.equal({ outcome: 'right' });
        for (let i = 0; i < 4; i++) expect(await wrong()).to.deep.equal({ outcome: 'wrong', nowLocked: false });
        expect(await wrong()).to.deep.equal({ outcome: 'wrong', nowLocked: true });
        expect(await sessions.attempt(address, () => true)).to.deep.equal({ outcome: 'locked', lockedUntil: now + 60_000 });
        expect(await sessions.lockedUntil(address)).to.equal(now + 60_000);
        expect(await timed.workspaceSessions.signIn(address, 'dsr_wrong')).to.deep.equal({
          outcome: 'unknown',
          nowLocked: false,
        });
        now += 60_000;
        expect(await sessions.lockedUntil(address)).to.equal(null);
        expect(await sessions.attempt(address, () => true)).to.deep.equal({ outcome: 'right' });
      });

      it('signs a session out, and opens, reads and ends a workspace session', async () => {
        const id = uniqueName('session');
        expect(await timed.adminSessions.isSignedOut(id)).to.equal(false);
        await timed.adminSessions.signOut(id, now + 3_600_000);
        expect(await timed.adminSessions.isSignedOut(id)).to.equal(true);
        const { key, secret } = await timed.keys.create({ name: 'workspace' });
        const opened = await timed.workspaceSessions.signIn(uniqueName('198.51.100'), secret);
        if (opened.outcome !== 'signed-in') throw new Error(`not signed in: ${opened.outcome}`);
        expect((await timed.workspaceSessions.keyOf(opened.session)).id).to.equal(key.id);
        await timed.workspaceSessions.signOut(opened.session);
        const ended = await timed.workspaceSessions.keyOf(opened.session).catch((error: unknown) => error);
        expect(isDossierError(ended, 'ERR_AUTH_INVALID_KEY')).to.equal(true);
      });

      if (backend.shared) {
        it('judges tries made at once on two processes one after the other', async () => {
          const other = createDossier({ store: url, clock: { now: () => now }, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
          try {
            const address = uniqueName('203.0.113');
            const verdicts = await Promise.all(
              Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? timed : other).adminSessions.attempt(address, () => false)),
            );
            expect(verdicts.filter((verdict) => verdict.outcome === 'wrong')).to.have.length(5);
            expect(verdicts.filter((verdict) => verdict.outcome === 'wrong' && verdict.nowLocked)).to.have.length(1);
            expect(verdicts.filter((verdict) => verdict.outcome === 'locked')).to.have.length(7);
          } finally {
            await other.close();
          }
        });

        it("moves the sessions and tries today's release wrote into its records when it opens the store", async () => {
          const namespace = uniqueName('old');
          const clock = { now: () => Date.now() };
          const open = () => openBackend(url, { namespace, clock, timeoutMs: CONTRACT_STORE_TIMEOUT_MS });
          const written = open();
          const at = Date.now();
          await written.kv.set('admin:signed-out:s1', true, 3_600_000);
          await written.kv.set('workspace:session:d1', { keyId: 'key_1', expiresAt: at + 3_600_000 }, 3_600_000);
          await written.kv.set('admin:sign-in:192.0.2.9', { times: [], lockedUntil: at + 60_000 }, 60_000);
          await written.close();
          const opened = open();
          try {
            expect(await opened.sessions!.get('admin:signed-out:s1', Date.now())).to.include({ keyId: null });
            expect(await opened.sessions!.get('workspace:session:d1', Date.now())).to.include({ keyId: 'key_1' });
            expect(await opened.sessions!.lockedUntil('admin:sign-in:192.0.2.9', Date.now())).to.equal(at + 60_000);
            for (const name of ['admin:signed-out:s1', 'workspace:session:d1', 'admin:sign-in:192.0.2.9']) {
              expect(await opened.kv.get(name), name).to.equal(undefined);
            }
          } finally {
            await opened.close();
          }
        });
      }
    });

    if (backend.shared) {
      it("moves the keys today's release wrote, left half done by a kill, into its records when two processes open it at once", async () => {
        const namespace = uniqueName('old');
        const clock = { now: () => Date.now() };
        const open = () => openBackend(url, { namespace, clock, timeoutMs: CONTRACT_STORE_TIMEOUT_MS });
        const written = open();
        const old = new KeyvKeyStore(written.kv, written.counters, clock);
        const owner = uniqueName('acct');
        const made = await Promise.all(Array.from({ length: 5 }, (_, n) => old.create({ name: `old${n}`, owner })));
        const [plain, rolled, revoked, cut] = made;
        const fresh = await old.roll(rolled!.key.id, 3600);
        await old.revoke(revoked!.key.id);
        // What a kill left: a digest in the list with no record (a creation cut after it took its slot,
        // or a record gone), a key whose record was written and whose list slot never was.
        await new AppendOnlyIndex(written.kv, written.counters, 'keys').append('0'.repeat(64));
        await written.kv.delete(`key:${createHash('sha256').update(cut!.secret).digest('hex')}`);
        const unlisted = { ...plain!.key, id: 'key_unlisted0000001', name: 'unlisted', createdAt: new Date().toISOString() };
        await written.kv.set(`key:${'1'.repeat(64)}`, unlisted);
        await written.kv.set(`key-id:${unlisted.id}`, '1'.repeat(64));
        await written.close();

        const [first, second] = [open(), open()];
        try {
          await Promise.all([first.keys!.ready(), second.keys!.ready()]);
          const keys = new RecordKeyStore(second.keys!, clock);
          const listed = await listKeys(keys, { owner, limit: '100' }, Date.now());
          expect(listed.total).to.equal(5);
          expect(listed.items.map((key) => key.id).sort()).to.deep.equal(
            [plain, rolled, revoked, made[4]]
              .map((m) => m!.key.id)
              .concat(unlisted.id)
              .sort(),
          );
          expect((await keys.verify(plain!.secret))?.id).to.equal(plain!.key.id);
          expect((await keys.verify(fresh.secret))?.id).to.equal(rolled!.key.id);
          expect((await keys.verify(rolled!.secret))?.id, 'an old secret in its grace').to.equal(rolled!.key.id);
          expect(await keys.verify(revoked!.secret)).to.equal(null);
          expect((await keys.get(revoked!.key.id)).revokedAt).to.be.a('string');
          expect(await keys.verify(cut!.secret)).to.equal(null);
          expect((await keys.get(made[4]!.key.id)).name).to.equal('old4');
          // Nothing of the key-value records is left, and a third open moves nothing again.
          const third = open();
          try {
            for (const name of [
              `key-id:${plain!.key.id}`,
              `key:${createHash('sha256').update(plain!.secret).digest('hex')}`,
              'keys:1',
            ]) {
              expect(await third.kv.get(name), name).to.equal(undefined);
            }
            const again = new RecordKeyStore(third.keys!, clock);
            expect((await listKeys(again, { owner, limit: '100' }, Date.now())).total).to.equal(5);
          } finally {
            await third.close();
          }
        } finally {
          await Promise.all([first.close(), second.close()]);
        }
      });

      it('a key created by one instance works on another at once, and its revocation too', async () => {
        const other = createDossier({ store: url, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
        try {
          const { key, secret } = await dossier.keys.create({ name: 'shared' });
          expect((await other.keys.verify(secret))?.id).to.equal(key.id);
          expect((await other.keys.list()).map((k) => k.id)).to.include(key.id);
          await dossier.keys.revoke(key.id);
          expect(await other.keys.verify(secret)).to.equal(null);
        } finally {
          await other.close();
        }
      });
    }
  });
}
