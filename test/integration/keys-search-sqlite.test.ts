import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { listKeys, type KeyListQuery } from '../../lib/internal.js';
import { pageOf } from '../../lib/keys/key-listing.js';
import type { KeyStore } from '../../lib/ports/key-store.js';
import { makeFtsAsBefore, tableSql } from '../support/sqlite-fts.js';

// The keys' search on SQLite (lib/stores/sqlite/backend.ts): a needle of three characters or more is a
// phrase of the FTS5 trigram table, whose matches are counted there alone when no other filter applies and
// read by their ids; every page answers what the memory store's reading of every key answers
// (lib/keys/key-listing.ts's `pageOf`), through renames and revocations, and in a store whose FTS table a
// release before made without positions.

const NAMES = [
  'Production API',
  'staging ÉCLAIR',
  'Straße nightly',
  'ΟΔΟΣ sync',
  'grin 😀😃😄',
  'İstanbul office',
  'say "off"_now',
  '50% of a_b',
  'broken \uFFFD text',
  'CI runner',
  // Every trigram of `bana`, but not `bana`.
  'ban ana split',
];

/** Needles of one, two and three code points or more: in most keys, in some, in one, in none; across owner and id too. */
const NEEDLES = [
  'a',
  'ß',
  '"',
  '%',
  'api',
  'API',
  'production',
  'éclair',
  'STRAßE',
  'οδοσ',
  'i̇stan',
  'stanbul',
  '😀😃',
  '😃😄',
  '"off"_',
  'y "o',
  '0% of',
  'a_b',
  '\uFFFD',
  '\uFFFD te',
  'acct_1',
  'acct_',
  'key_',
  'ci r',
  'bana',
  'ana s',
  'renamed',
  'nowhere',
];

const FILTERS: KeyListQuery[] = [
  {},
  { owner: 'acct_1' },
  { status: 'active' },
  { status: 'revoked' },
  { status: 'expired' },
  { scope: 'documents' },
];

/** When the pages are read: after the keys that expire have. */
const LATER = Date.now() + 3 * 24 * 3600_000;

/** Creates `count` keys over three owners, some expiring, some for lookups only; renames and revokes a few. */
async function writeKeys(dossier: Dossier, count: number): Promise<void> {
  const made = [];
  for (let n = 0; n < count; n += 1) {
    const { key } = await dossier.keys.create({
      name: `${NAMES[n % NAMES.length]} ${n}`,
      owner: `acct_${n % 3}`,
      ...(n % 4 === 1 && { scopes: ['lookup' as const] }),
      ...(n % 5 === 2 && { expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString() }),
    });
    made.push(key);
  }
  for (const key of made.filter((_, n) => n % 9 === 4)) await dossier.keys.update(key.id, { name: `renamed ${key.name}` });
  for (const key of made.filter((_, n) => n % 7 === 3)) await dossier.keys.revoke(key.id);
}

/** Every page of every needle under every filter, five keys a page, as the memory store reads them. */
async function expectSearches(dossier: Dossier): Promise<void> {
  const all = await dossier.keys.list();
  const reference = { page: async (query) => pageOf(all, query) } as KeyStore;
  for (const needle of NEEDLES) {
    for (const filter of FILTERS) {
      let query: KeyListQuery = { ...filter, search: needle, limit: '5' };
      for (let page = 0; ; page += 1) {
        const [got, want] = await Promise.all([listKeys(dossier.keys, query, LATER), listKeys(reference, query, LATER)]);
        const what = `${JSON.stringify(needle)} ${JSON.stringify(filter)} page ${page}`;
        expect(
          got.items.map((key) => key.id),
          what,
        ).to.deep.equal(want.items.map((key) => key.id));
        expect([got.total, got.nextCursor, got.previousCursor], what).to.deep.equal([
          want.total,
          want.nextCursor,
          want.previousCursor,
        ]);
        if (got.nextCursor === null) break;
        query = { ...query, cursor: got.nextCursor };
      }
    }
  }
}

describe('the keys search on SQLite', function () {
  this.timeout(60_000);
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-keys-search-'));
    path = join(dir, 'store.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers every search, alone or with a filter, as a reading of every key does', async () => {
    const dossier = createDossier({ store: `sqlite://${path}` });
    try {
      await writeKeys(dossier, 70);
      await expectSearches(dossier);
    } finally {
      await dossier.close();
    }
  });

  it('makes the FTS table of a release before (no positions) again at the next start, and answers exactly', async () => {
    const first = createDossier({ store: `sqlite://${path}` });
    try {
      await writeKeys(first, 40);
    } finally {
      await first.close();
    }
    makeFtsAsBefore(
      path,
      'dossier_key_search',
      'INSERT INTO dossier_key_search (rowid, text) SELECT seq, search FROM dossier_keys',
    );
    const second = createDossier({ store: `sqlite://${path}` });
    try {
      await writeKeys(second, 20);
      await expectSearches(second);
    } finally {
      await second.close();
    }
    expect(tableSql(path, 'dossier_key_search')).to.include("detail = 'full'");
  });
});
