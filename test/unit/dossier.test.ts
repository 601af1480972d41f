import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../../lib/dossier.js';
import type { ApiKey, KeyStore } from '../../lib/ports/key-store.js';
import type { QuotaStore } from '../../lib/ports/quota-store.js';

describe('createDossier', () => {
  it('uses the ports a host passes instead of the built-in ones', async () => {
    const key: ApiKey = {
      id: 'k1',
      name: 'host',
      owner: 'o',
      scopes: ['lookup'],
      dailyLimit: 7,
      createdAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
      expiresAt: null,
    };
    const keys: KeyStore = {
      create: async () => ({ key, secret: 's' }),
      verify: async (secret) => (secret === 'host-secret' ? key : null),
      get: async () => key,
      list: async () => [key],
      page: async () => ({ items: [key], total: 1, next: null, previous: null }),
      update: async () => key,
      revoke: async () => key,
      roll: async () => ({ key, secret: 's2' }),
    };
    const quotas: QuotaStore = {
      consume: async (_id, limit) => ({ allowed: true, limit, remaining: 3, resetAt: 0 }),
      peek: async (_id, limit) => ({ allowed: true, limit, remaining: 3, resetAt: 0 }),
      refund: async () => {},
      history: async () => [],
    };
    const dossier = createDossier({ store: 'memory://', keys, quotas });
    try {
      // The host's keys, behind the rule that a revoked key's watches go with it.
      expect(await dossier.keys.list()).to.deep.equal([key]);
      expect(dossier.quotas).to.equal(quotas);
      expect(await dossier.keys.verify('host-secret')).to.equal(key);
      expect(dossier.metering.limitOf(key)).to.equal(7);
      expect(dossier.metering.limitOf({ ...key, dailyLimit: null })).to.equal(1000);
    } finally {
      await dossier.close();
    }
  });

  it('keeps two instances in one process apart', async () => {
    const a = createDossier({ store: 'memory://' });
    const b = createDossier({ store: 'memory://' });
    try {
      const { secret } = await a.keys.create({ name: 'only in a' });
      expect(await a.keys.verify(secret)).to.not.equal(null);
      expect(await b.keys.verify(secret)).to.equal(null);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('opens no store that nothing uses: closing does not create the SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-unused-'));
    const file = join(dir, 'never.sqlite');
    const unused = async (): Promise<never> => {
      throw new Error('not called');
    };
    try {
      const dossier = createDossier({
        store: `sqlite://${file}`,
        lookups: { parse: (_kind, input) => String(input), lookup: unused },
        keys: {
          create: unused,
          verify: unused,
          get: unused,
          list: unused,
          page: unused,
          update: unused,
          revoke: unused,
          roll: unused,
        },
        quotas: { consume: unused, peek: unused, refund: unused, history: unused },
        documents: {
          list: unused,
          get: unused,
          create: unused,
          createStream: unused,
          update: unused,
          delete: unused,
          templates: () => [],
        },
      });
      await dossier.close();
      expect(existsSync(file)).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes once, however often it is asked', async () => {
    const dossier = createDossier({ store: 'memory://' });
    await dossier.keys.create({ name: 'opens the store' });
    const first = dossier.close();
    expect(dossier.close()).to.equal(first);
    await first;
    expect(dossier.close()).to.equal(first);
    await dossier.close();
    // Closed for real: the store refuses work instead of answering from a backend left open.
    const error = await dossier.keys.create({ name: 'after close' }).catch((e: unknown) => e);
    expect(error).to.have.property('code', 'ERR_STORE_UNAVAILABLE');
  });
});
