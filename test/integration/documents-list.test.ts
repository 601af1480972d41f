import { expect } from 'chai';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

interface Listed {
  id: number;
  name: string;
  favorite: boolean;
  template: { id: number };
}

eachAdapter(() => {
  describe('GET /api/v1/documents: every list parameter', () => {
    let server: TestServer;
    let key: string;
    let base: string;

    /** Seeds alice's documents through the service: ids 1..6 (template 1), 7 (template 6), and one of bob's. */
    beforeEach(async () => {
      server = await startTestServer();
      key = await server.key({ owner: 'alice' });
      base = `${server.url}/api/v1/documents`;
      const docs = server.dossier.documents;
      const seed = [
        { name: 'banana bread', prompt: 'p', result: 'Sweet LOAF with ripe bananas' },
        { name: 'Apple pie', prompt: 'p', result: 'classic dessert' },
        { name: 'cherry tart', prompt: 'p', result: 'tart and sweet' },
        { name: 'apple crumble', prompt: 'p', result: 'warm crumble' },
        { name: 'Date squares', prompt: 'p', result: 'chewy dates' },
        { name: 'Éclair', prompt: 'p', result: 'choux pastry' },
      ];
      for (const fields of seed) {
        const created = await docs.create('alice', { name: fields.name, prompt: fields.prompt });
        await docs.update('alice', created.id, { result: fields.result });
      }
      await docs.update('alice', 2, { favorite: true });
      await docs.update('alice', 5, { favorite: true });
      await docs.create('alice', { name: 'Outline apple', prompt: 'p', templateId: 6 });
      await docs.create('bob', { name: 'apple of bob', prompt: 'p' });
    });

    afterEach(async () => {
      await server.close();
    });

    async function list(query = ''): Promise<{
      status: number;
      body: {
        data: Listed[];
        links: Record<string, string | null>;
        meta: Record<string, unknown>;
        status: number;
        errors?: Record<string, string[]>;
        message?: string;
      };
    }> {
      const response = await server.get(`/api/v1/documents${query}`, key);
      return { status: response.status, body: await response.json() };
    }

    const ids = (data: Listed[]): number[] => data.map((d) => d.id);

    it('by default lists template 1 (Freestyle) only, newest first, 10 a page, with the Laravel envelope', async () => {
      const { status, body } = await list();
      expect(status).to.equal(200);
      expect(Object.keys(body)).to.deep.equal(['data', 'links', 'meta', 'status']);
      expect(ids(body.data)).to.deep.equal([6, 5, 4, 3, 2, 1]);
      expect(body.status).to.equal(200);
      expect(body.links).to.deep.equal({ first: `${base}?page=1`, last: `${base}?page=1`, prev: null, next: null });
      expect(body.meta).to.deep.equal({ current_page: 1, from: 1, last_page: 1, path: base, per_page: 10, to: 6, total: 6 });
    });

    it('template_id restricts the list to one template', async () => {
      expect(ids((await list('?template_id=6')).body.data)).to.deep.equal([7]);
      expect((await list('?template_id=72')).body.meta.total).to.equal(0);
    });

    it('search matches a substring of the name, case-insensitively (search_by=name is the default)', async () => {
      expect(ids((await list('?search=APPLE')).body.data)).to.deep.equal([4, 2]);
      expect(ids((await list('?search=apple&search_by=name')).body.data)).to.deep.equal([4, 2]);
    });

    it('search_by=result searches the result instead', async () => {
      expect(ids((await list('?search=sweet&search_by=result')).body.data)).to.deep.equal([3, 1]);
      expect(ids((await list('?search=loaf&search_by=result')).body.data)).to.deep.equal([1]);
      expect((await list('?search=apple&search_by=result')).body.meta.total).to.equal(0);
    });

    it('favorite accepts 1, 0, true and false', async () => {
      expect(ids((await list('?favorite=1')).body.data)).to.deep.equal([5, 2]);
      expect(ids((await list('?favorite=true')).body.data)).to.deep.equal([5, 2]);
      expect(ids((await list('?favorite=0')).body.data)).to.deep.equal([6, 4, 3, 1]);
      expect(ids((await list('?favorite=false')).body.data)).to.deep.equal([6, 4, 3, 1]);
      expect((await list('?favorite=1')).body.data.every((d) => d.favorite === true)).to.equal(true);
    });

    it('sort_by=id with sort=asc or desc orders by creation', async () => {
      expect(ids((await list('?sort_by=id&sort=asc')).body.data)).to.deep.equal([1, 2, 3, 4, 5, 6]);
      expect(ids((await list('?sort_by=id&sort=desc')).body.data)).to.deep.equal([6, 5, 4, 3, 2, 1]);
      expect(ids((await list('?sort=asc')).body.data)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    });

    it('sort_by=name sorts case-insensitively, accents next to their letter', async () => {
      const names = (await list('?sort_by=name&sort=asc')).body.data.map((d) => d.name);
      expect(names).to.deep.equal(['apple crumble', 'Apple pie', 'banana bread', 'cherry tart', 'Date squares', 'Éclair']);
      const reversed = (await list('?sort_by=name&sort=desc')).body.data.map((d) => d.name);
      expect(reversed).to.deep.equal([...names].reverse());
    });

    it('breaks ties of sort_by=name by id', async () => {
      await server.dossier.documents.create('alice', { name: 'APPLE PIE', prompt: 'p' });
      const data = (await list('?sort_by=name&sort=asc&search=apple pie')).body.data;
      expect(data.map((d) => [d.id, d.name])).to.deep.equal([
        [2, 'Apple pie'],
        [9, 'APPLE PIE'],
      ]);
    });

    it('per_page and page paginate, and links carry every filter that was given', async () => {
      for (let i = 0; i < 25; i += 1) await server.dossier.documents.create('alice', { name: `bulk ${i}`, prompt: 'p' });
      const { body } = await list('?per_page=10&page=2&search=bulk&sort=asc&favorite=0&unknown=x');
      expect(body.data).to.have.length(10);
      expect(body.data[0]?.name).to.equal('bulk 10');
      const query = 'search=bulk&favorite=0&sort=asc&per_page=10';
      expect(body.links).to.deep.equal({
        first: `${base}?${query}&page=1`,
        last: `${base}?${query}&page=3`,
        prev: `${base}?${query}&page=1`,
        next: `${base}?${query}&page=3`,
      });
      expect(body.meta).to.deep.equal({ current_page: 2, from: 11, last_page: 3, path: base, per_page: 10, to: 20, total: 25 });
      const last = (await list('?per_page=10&page=3&search=bulk')).body;
      expect(last.meta).to.include({ from: 21, to: 25 });
      expect(last.links.next).to.equal(null);
    });

    it('accepts per_page 10, 25, 50 and 100', async () => {
      for (const perPage of [10, 25, 50, 100]) expect((await list(`?per_page=${perPage}`)).body.meta.per_page).to.equal(perPage);
    });

    it('answers an empty page past the end with from and to null', async () => {
      const { status, body } = await list('?page=5');
      expect(status).to.equal(200);
      expect(body.data).to.deep.equal([]);
      expect(body.meta).to.deep.equal({
        current_page: 5,
        from: null,
        last_page: 1,
        path: base,
        per_page: 10,
        to: null,
        total: 6,
      });
      expect(body.links.prev).to.equal(`${base}?page=4`);
      expect(body.links.next).to.equal(null);
    });

    it('has last_page 1 for an owner with no documents', async () => {
      const empty = await server.key({ owner: 'nobody' });
      const body = await (await server.get('/api/v1/documents', empty)).json();
      expect(body.meta).to.deep.equal({
        current_page: 1,
        from: null,
        last_page: 1,
        path: base,
        per_page: 10,
        to: null,
        total: 0,
      });
    });

    it('encodes the search in links and treats empty values as not given', async () => {
      const { body } = await list('?search=apple%20pie&per_page=&favorite=');
      expect(body.links.first).to.equal(`${base}?search=apple+pie&page=1`);
      expect(ids(body.data)).to.deep.equal([2]);
    });

    for (const [query, field] of [
      ['per_page=20', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['sort=up', 'sort'],
      ['sort_by=created_at', 'sort_by'],
      ['search_by=prompt', 'search_by'],
      ['template_id=0', 'template_id'],
      ['template_id=73', 'template_id'],
      ['template_id=x', 'template_id'],
      ['favorite=yes', 'favorite'],
      ['page=0', 'page'],
      ['page=-2', 'page'],
      ['page=two', 'page'],
      ['sort=asc&sort=desc', 'sort'],
      ['search=a&search=b', 'search'],
    ] as const) {
      it(`answers 422 with errors.${field} for ${query}`, async () => {
        const { status, body } = await list(`?${query}`);
        expect(status).to.equal(422);
        expect(body.status).to.equal(422);
        expect(Object.keys(body.errors ?? {})).to.deep.equal([field]);
        expect(body.message).to.equal(body.errors?.[field]?.[0]);
      });
    }

    it('names every bad parameter in one 422', async () => {
      const { body } = await list('?per_page=7&sort=sideways&page=0');
      expect(Object.keys(body.errors ?? {})).to.deep.equal(['sort', 'per_page', 'page']);
      expect(body.message).to.equal('The selected sort is invalid. (and 2 more errors)');
    });

    it('sees writes made by the service at once (the listing cache follows the version)', async () => {
      expect((await list()).body.meta.total).to.equal(6);
      await server.dossier.documents.delete('alice', 3);
      await server.dossier.documents.update('alice', 4, { name: 'zucchini loaf' });
      const { body } = await list('?sort_by=name&sort=desc');
      expect(body.meta.total).to.equal(5);
      expect(body.data[0]?.name).to.equal('zucchini loaf');
    });
  });
});
