import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewStoredDocument } from '../../lib/ports/document-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { searchText } from '../../lib/records/stored-document.js';
import { makeFtsAsBefore, tableSql } from '../support/sqlite-fts.js';

describe('the FTS table of results on SQLite, from a release that kept it without positions', () => {
  const clock = { now: () => Date.now() };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-fts-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const results = ['A Harbor at dusk', 'the harbour', 'harbors and harbor', 'no port', 'HARBOR', 'har bor'];
  const document = (n: number): NewStoredDocument => ({
    owner: 'fts',
    name: `Note ${n}`,
    template_id: 1,
    prompt: 'p',
    creativity: 0.5,
    result: `${results[n % results.length]} ${n}`,
    words: 3,
    favorite: n % 4 === 0,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });
  const query = {
    searchBy: 'result' as const,
    templateId: 1,
    sortBy: 'id' as const,
    sort: 'asc' as const,
    perPage: 100,
    page: 1,
  };

  it('is made again with positions at the next start, and answers each search by result exactly', async () => {
    const path = join(dir, 'store.sqlite');
    let backend = openBackend(`sqlite://${path}`, { namespace: 'dossier', clock });
    const written: NewStoredDocument[] = [];
    for (let n = 0; n < 40; n += 1) {
      written.push(document(n));
      await backend.documents!.create(document(n));
    }
    await backend.close();
    // What releases before kept: which trigrams each result has, not where.
    makeFtsAsBefore(
      path,
      'dossier_document_results',
      'INSERT INTO dossier_document_results (rowid, text) SELECT id, result_lower FROM dossier_documents',
    );

    backend = openBackend(`sqlite://${path}`, { namespace: 'dossier', clock });
    try {
      written.push(document(40));
      await backend.documents!.create(document(40));
      for (const search of ['harbor', 'harbo', 'r at', 'har bor', 'harbors and', 'nowhere'])
        for (const favorite of [undefined, true]) {
          const listed = await backend.documents!.list('fts', { ...query, search, ...(favorite ? { favorite } : {}) });
          const expected = written.filter(
            (made) => searchText(made.result).includes(search) && (favorite === undefined || made.favorite),
          );
          expect(listed.total, `${search} ${favorite}`).to.equal(expected.length);
          expect(listed.documents.map(({ result }) => result)).to.deep.equal(expected.map(({ result }) => result));
        }
    } finally {
      await backend.close();
    }
    expect(tableSql(path, 'dossier_document_results')).to.include("detail = 'full'");
  });
});
