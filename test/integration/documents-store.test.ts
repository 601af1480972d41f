import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

function form(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

eachAdapter(() => {
  describe('documents on a shared SQLite store', () => {
    let dir: string;
    let first: Dossier;
    let second: Dossier;

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'dossier-docs-'));
      const store = `sqlite://${join(dir, 'shared.sqlite')}`;
      first = createDossier({ store, cache: 'memory://' });
      second = createDossier({ store, cache: 'memory://' });
    });

    afterEach(async () => {
      await first.close();
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('hands out unique, growing ids to two instances creating concurrently', async () => {
      const creations = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? first : second).documents.create('alice', { name: `doc ${i}`, prompt: 'shared store' }),
      );
      const ids = (await Promise.all(creations)).map((doc) => doc.id);
      expect(new Set(ids).size).to.equal(40);
      expect([...ids].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
      const later = await first.documents.create('alice', { name: 'later', prompt: 'p' });
      expect(later.id).to.equal(41);
    });

    it("each instance lists the other's writes (creates, updates, deletes) at once", async () => {
      const query = { perPage: 100 };
      await first.documents.create('alice', { name: 'from first', prompt: 'p' });
      expect((await second.documents.list('alice', query)).total).to.equal(1);
      expect((await first.documents.list('alice', query)).total).to.equal(1);
      const made = await second.documents.create('alice', { name: 'from second', prompt: 'p' });
      expect((await first.documents.list('alice', query)).data.map((d) => d.name)).to.deep.equal(['from second', 'from first']);
      await second.documents.update('alice', made.id, { name: 'renamed', favorite: true });
      expect((await first.documents.list('alice', { favorite: true })).data.map((d) => d.name)).to.deep.equal(['renamed']);
      await second.documents.delete('alice', made.id);
      expect((await first.documents.list('alice', query)).data.map((d) => d.name)).to.deep.equal(['from first']);
      const missing = await first.documents.get('alice', made.id).catch((error: unknown) => error);
      expect(missing).to.have.property('code', 'ERR_DOCUMENT_NOT_FOUND');
    });

    it('keeps documents after a restart', async () => {
      const made = await first.documents.create('alice', { name: 'kept', prompt: 'p' });
      await first.close();
      first = createDossier({ store: `sqlite://${join(dir, 'shared.sqlite')}`, cache: 'memory://' });
      expect((await first.documents.get('alice', made.id)).name).to.equal('kept');
      expect((await first.documents.list('alice', {})).total).to.equal(1);
    });
  });

  describe('documents when the store is down', () => {
    let dir: string;
    let keys: TestServer;
    let server: TestServer;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dossier-down-'));
      // Keys come from a working memory store; documents live on a SQLite file that is then closed.
      keys = await startTestServer();
      server = await startTestServer({ store: `sqlite://${join(dir, 'docs.sqlite')}`, keys: keys.dossier.keys });
    });

    afterEach(async () => {
      await server.close();
      await keys.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers 503 for every document operation, listing included', async () => {
      const key = await keys.key({ owner: 'alice' });
      const made = await server.get('/api/v1/documents', key, form({ name: 'n', prompt: 'p' }));
      expect(made.status).to.equal(201);
      const { id } = (await made.json()).data;
      expect((await server.get('/api/v1/documents', key)).status).to.equal(200);
      await server.dossier.close();
      for (const [path, init] of [
        ['/api/v1/documents', {}],
        [`/api/v1/documents/${id}`, {}],
        ['/api/v1/documents', form({ name: 'n', prompt: 'p' })],
        [`/api/v1/documents/${id}`, { ...form({ name: 'x' }), method: 'PATCH' }],
        [`/api/v1/documents/${id}`, { method: 'DELETE' }],
      ] as const) {
        const response = await server.get(path, key, init);
        expect(response.status, `${init.method ?? 'GET'} ${path}`).to.equal(503);
        expect(response.headers.get('retry-after')).to.equal('5');
        expect((await response.json()).status).to.equal(503);
      }
    });
  });
});
