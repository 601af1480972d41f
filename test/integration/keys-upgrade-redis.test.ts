import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { listKeys } from '../../lib/internal.js';
import { KeyvKeyStore } from '../../lib/keys/keyv-key-store.js';
import { RecordKeyStore } from '../../lib/keys/record-key-store.js';
import { digestOf } from '../../lib/records/stored-key.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { RedisKeyRecords, type RedisKeyClient } from '../../lib/stores/redis/keys.js';
import { StoreGuard } from '../../lib/stores/shared/guard.js';
import { suiteRedis } from '../support/redis-client.js';

const redisUrl = process.env.DOSSIER_TEST_REDIS;

// A new release opening a Redis store of the release that kept keys as values moves them into records
// (lib/stores/redis/keys.ts), which takes tens of seconds at 100,000 keys: a request with a key must be
// answered meanwhile, from that key moved by itself, not wait for the whole move past the store's deadline.
describe(`keys of an older release on Redis, while they are moved${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const redis = suiteRedis();

  it('moves the keys of the layout before the lines (a sorted set of filtered fields) into the lines, and searches and filters them', async () => {
    const namespace = `lines${randomBytes(4).toString('hex')}`;
    const p = `${namespace}:kr:`;
    const owner = 'Acct_Lines';
    const made = [0, 1, 2].map((n) => ({
      id: `key_lines${n}${randomBytes(4).toString('hex')}`,
      name: `old${n} Needle`,
      owner,
      scopes: n === 2 ? ['lookup'] : ['lookup', 'documents'],
      dailyLimit: null,
      createdAt: new Date(Date.UTC(2026, 10, 29, 10, 0, n)).toISOString(),
      revokedAt: n === 1 ? new Date(Date.UTC(2026, 10, 29, 11)).toISOString() : null,
      expiresAt: null,
    }));
    // As the script of that layout wrote each key (what the list and the search read; its secret too).
    for (const key of made) {
      const member = `${key.createdAt}|${key.id}`;
      const searched = [key.name, key.owner, key.id].map((text) => text.toLowerCase());
      const filtered = [member, key.revokedAt === null ? '' : '1', '', `,${key.scopes.join(',')},`, ...searched].join('\n');
      await redis.client.hSet(`${p}key:${key.id}`, { record: JSON.stringify(key), filtered });
      await redis.client.zAdd(`${p}filtered`, { score: 0, value: filtered });
      await redis.client.zAdd(`${p}all`, { score: 0, value: member });
      await redis.client.zAdd(`${p}owner:${owner}`, { score: 0, value: member });
      for (const field of searched) {
        for (let i = 0; i + 3 <= field.length; i += 1) await redis.client.sAdd(`${p}gram:${field.slice(i, i + 3)}`, member);
      }
      await redis.client.set(`${p}secret:${digestOf(`secret-${key.id}`)}`, key.id);
    }
    const opened = openBackend(redisUrl!, { namespace, clock: { now: () => Date.now() }, timeoutMs: 10_000 });
    try {
      const keys = new RecordKeyStore(opened.keys!, { now: () => Date.now() });
      const ids = (...n: number[]): string[] => n.map((i) => made[i]!.id);
      const found = async (query: Record<string, string>): Promise<[number, string[]]> => {
        const page = await listKeys(keys, { limit: '10', ...query }, Date.now());
        return [page.total, page.items.map((key) => key.id)];
      };
      expect(await found({ search: 'needle', owner })).to.deep.equal([3, ids(2, 1, 0)]);
      expect(await found({ search: 'old', status: 'active' })).to.deep.equal([2, ids(2, 0)]);
      expect(await found({ search: 'acct_lines', scope: 'documents' })).to.deep.equal([2, ids(1, 0)]);
      expect(await found({ owner, status: 'revoked' })).to.deep.equal([1, ids(1)]);
      expect((await opened.keys!.bySecret(digestOf(`secret-${made[0]!.id}`)))?.key.id).to.equal(made[0]!.id);
      expect(await redis.client.exists(`${p}filtered`)).to.equal(0);
      expect(await redis.client.hGet(`${p}key:${made[0]!.id}`, 'filtered')).to.equal(null);
    } finally {
      await opened.close();
      const names = await redis.client.keys(`${namespace}:*`);
      if (names.length > 0) await redis.client.del(names);
    }
  });

  it('answers for a key moved by itself while the move is held, then lists every key once', async () => {
    const namespace = `upgrade${randomBytes(4).toString('hex')}`;
    const clock = { now: () => Date.now() };
    const written = openBackend(redisUrl!, { namespace, clock, timeoutMs: 10_000 });
    const old = new KeyvKeyStore(written.kv, written.counters, clock);
    const owner = 'acct_upgrade';
    const made = await Promise.all(Array.from({ length: 30 }, (_, n) => old.create({ name: `old${n}`, owner })));
    const [plain, rolled, revoked] = made;
    const fresh = await old.roll(rolled!.key.id, 3600);
    await old.revoke(revoked!.key.id);
    await written.close();

    // The move scans for the old records first: held there until released, it cannot end meanwhile.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let moved = false;
    const client = redis.client as unknown as RedisKeyClient;
    const holding = new Proxy(client, {
      get(target, name, receiver) {
        if (name === 'scan')
          return async (...args: unknown[]) => (await held, target.scan(...(args as Parameters<RedisKeyClient['scan']>)));
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const records = new RedisKeyRecords({ client: async () => holding, guard: new StoreGuard(), namespace, now: clock.now });
    const moving = records.ready().then(() => (moved = true));
    const keys = new RecordKeyStore(records, clock);
    try {
      expect((await keys.verify(plain!.secret))?.id).to.equal(plain!.key.id);
      expect((await keys.verify(fresh.secret))?.id).to.equal(rolled!.key.id);
      expect((await keys.verify(rolled!.secret))?.id, 'an old secret in its grace').to.equal(rolled!.key.id);
      expect(await keys.verify(revoked!.secret)).to.equal(null);
      await records.readyFor([digestOf(made[3]!.secret), digestOf(made[4]!.secret), digestOf('unknown')]);
      expect(moved, 'the move is still held').to.equal(false);
      // Each key answered for is a record already, its old values gone.
      for (const { key, secret } of [plain!, made[3]!, made[4]!]) {
        expect(await redis.client.exists(`${namespace}:kr:key:${key.id}`), key.id).to.equal(1);
        expect(await redis.client.exists(`${namespace}::key:${digestOf(secret)}`), key.id).to.equal(0);
      }
      release();
      await moving;
      const listed = await listKeys(keys, { owner, limit: '100' }, Date.now());
      expect(listed.total).to.equal(30);
      expect(listed.items.map((key) => key.id).sort()).to.deep.equal(made.map(({ key }) => key.id).sort());
      expect((await keys.verify(rolled!.secret))?.id, 'still in its grace once all are moved').to.equal(rolled!.key.id);
      expect((await keys.get(revoked!.key.id)).revokedAt).to.be.a('string');
      expect(await redis.client.keys(`${namespace}::key*`)).to.deep.equal([]);
    } finally {
      release();
      await moving.catch(() => undefined);
      const names = await redis.client.keys(`${namespace}:*`);
      for (let start = 0; start < names.length; start += 500) await redis.client.del(names.slice(start, start + 500));
    }
  });
});
