import { expect } from 'chai';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A form-encoded request, as the specification's clients send it. */
function form(method: string, fields: Record<string, string>): RequestInit {
  return {
    method,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

function json(method: string, body: unknown): RequestInit {
  return { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

eachAdapter(() => {
  describe('interface B documents over HTTP', () => {
    let server: TestServer;
    let key: string;
    let now: number;

    beforeEach(async () => {
      now = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
      server = await startTestServer({ clock: { now: () => now } });
      key = await server.key({ owner: 'alice' });
    });

    afterEach(async () => {
      await server.close();
    });

    async function create(fields: Record<string, string> = { name: 'Doc', prompt: 'Remote work for small teams' }, as = key) {
      const response = await server.get('/api/v1/documents', as, form('POST', fields));
      expect(response.status, await response.clone().text()).to.equal(201);
      return (await response.json()).data;
    }

    describe('POST /api/v1/documents', () => {
      it('creates from a form-encoded body: 201 with the whole document', async () => {
        const response = await server.get(
          '/api/v1/documents',
          key,
          form('POST', {
            name: 'Launch',
            prompt: 'Write a tweet about our coffee subscription for developers',
            creativity: '0.75',
            template_id: '33',
          }),
        );
        expect(response.status).to.equal(201);
        expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
        const body = await response.json();
        expect(body.status).to.equal(201);
        expect(Object.keys(body.data)).to.deep.equal([
          'id',
          'name',
          'template',
          'prompt',
          'creativity',
          'result',
          'words',
          'favorite',
          'created_at',
          'updated_at',
        ]);
        expect(body.data).to.include({ id: 1, name: 'Launch', creativity: 0.75, favorite: false });
        expect(body.data.template).to.deep.equal({ id: 33, name: 'Tweet' });
        expect(body.data.prompt).to.equal('Write a tweet about our coffee subscription for developers');
        expect(body.data.result).to.be.a('string').that.includes('coffee');
        expect(Array.from(body.data.result as string).length).to.be.at.most(280);
        expect(body.data.words).to.be.a('number').above(0);
        expect(body.data.created_at).to.equal('2026-01-02T03:04:05.678Z').and.match(ISO_UTC);
        expect(body.data.updated_at).to.equal(body.data.created_at);
      });

      it('creates from a JSON body, with numbers for creativity and template_id', async () => {
        const response = await server.get(
          '/api/v1/documents',
          key,
          json('POST', { name: 'J', prompt: 'p q r', creativity: 0, template_id: 6, extra: [1] }),
        );
        expect(response.status).to.equal(201);
        const { data } = await response.json();
        expect(data.creativity).to.equal(0);
        expect(data.template).to.deep.equal({ id: 6, name: 'Blog outline' });
      });

      it('defaults to creativity 0.5 and template 1 (Freestyle)', async () => {
        const data = await create();
        expect(data.creativity).to.equal(0.5);
        expect(data.template).to.deep.equal({ id: 1, name: 'Freestyle' });
      });

      it('accepts an undefined custom template and names it Custom template N', async () => {
        const data = await create({ name: 'c', prompt: 'p', template_id: '60' });
        expect(data.template).to.deep.equal({ id: 60, name: 'Custom template 60' });
      });

      it('gives ids that grow with creation', async () => {
        const ids = [];
        for (let i = 0; i < 5; i += 1) ids.push((await create()).id);
        expect(ids).to.deep.equal([1, 2, 3, 4, 5]);
      });

      for (const [field, fields, expected] of [
        ['name', { prompt: 'p' }, 'The name field is required.'],
        ['name', { name: 'x'.repeat(129), prompt: 'p' }, 'The name field must not be greater than 128 characters.'],
        ['prompt', { name: 'n' }, 'The prompt field is required.'],
        ['prompt', { name: 'n', prompt: 'x'.repeat(2049) }, 'The prompt field must not be greater than 2048 characters.'],
        [
          'creativity',
          { name: 'n', prompt: 'p', creativity: '0.3' },
          'The selected creativity is invalid. Use 0, 0.25, 0.5, 0.75 or 1.',
        ],
        [
          'template_id',
          { name: 'n', prompt: 'p', template_id: '73' },
          'The template id field must be an integer between 1 and 72.',
        ],
        [
          'template_id',
          { name: 'n', prompt: 'p', template_id: '0' },
          'The template id field must be an integer between 1 and 72.',
        ],
      ] as const) {
        it(`answers 422 for ${field}: ${expected}`, async () => {
          const response = await server.get('/api/v1/documents', key, form('POST', fields as Record<string, string>));
          expect(response.status).to.equal(422);
          const body = await response.json();
          expect(body).to.deep.equal({ message: expected, status: 422, errors: { [field]: [expected] } });
        });
      }

      it('answers 422, not a crash, for a JSON number as name and an array as prompt', async () => {
        const response = await server.get('/api/v1/documents', key, json('POST', { name: 5, prompt: ['a'] }));
        expect(response.status).to.equal(422);
        expect((await response.json()).errors).to.deep.equal({
          name: ['The name field must be a string.'],
          prompt: ['The prompt field must be a string.'],
        });
      });

      it('answers 422 for a repeated form field', async () => {
        const response = await server.get('/api/v1/documents', key, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'name=a&name=b&prompt=p',
        });
        expect(response.status).to.equal(422);
        expect((await response.json()).errors).to.have.property('name');
      });

      it('treats a write with no body as an empty form: 422 for the missing fields', async () => {
        const response = await server.get('/api/v1/documents', key, { method: 'POST' });
        expect(response.status).to.equal(422);
        expect(Object.keys((await response.json()).errors)).to.deep.equal(['name', 'prompt']);
      });

      it('answers 413 for a body over 64 KiB, and stores nothing', async () => {
        for (const init of [
          form('POST', { name: 'n', prompt: 'x'.repeat(66_000) }),
          json('POST', { name: 'n', prompt: 'x'.repeat(66_000) }),
        ]) {
          const response = await server.get('/api/v1/documents', key, init);
          expect(response.status).to.equal(413);
          expect(await response.json()).to.deep.equal({ message: 'The request body is too large.', status: 413 });
        }
        expect((await (await server.get('/api/v1/documents', key)).json()).meta.total).to.equal(0);
      });

      it('answers 415 for a body that is neither form-encoded nor JSON', async () => {
        for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
          const response = await server.get('/api/v1/documents', key, {
            method: 'POST',
            headers: { 'Content-Type': type },
            body: 'name=a&prompt=b',
          });
          expect(response.status, type).to.equal(415);
          expect((await response.json()).status).to.equal(415);
        }
      });

      it('answers 422 for a body that is malformed JSON, not an object, or poisoned', async () => {
        for (const body of ['{"name":', 'null', '"x"', '[1,2]', '{"name":"a","prompt":"b","__proto__":{"x":1}}']) {
          const response = await server.get('/api/v1/documents', key, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body,
          });
          expect(response.status, body).to.equal(422);
          expect(await response.json()).to.deep.equal({
            message: 'The request body must be form fields or a JSON object of fields.',
            status: 422,
            errors: { body: ['The request body must be form fields or a JSON object of fields.'] },
          });
        }
      });

      it('answers 415, not 500, for a body in an unknown encoding', async () => {
        const response = await server.get('/api/v1/documents', key, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'foo' },
          body: 'name=a&prompt=b',
        });
        expect(response.status).to.equal(415);
        expect((await response.json()).status).to.equal(415);
      });

      it('matches the path as sent, case-sensitively: /API/V1/documents is no path of interface B', async () => {
        const response = await fetch(`${server.url}/API/V1/documents`);
        expect(response.status).to.equal(404);
        expect((await response.json()).code).to.equal('not_found');
      });

      it('answers an unsupported method with JSON', async () => {
        const response = await server.get('/api/v1/documents', key, { method: 'PROPFIND' });
        expect(response.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
        expect((await response.json()).status).to.equal(response.status);
      });

      it('counts words with CJK characters as 0.75 each', async () => {
        const data = await create();
        const response = await server.get(`/api/v1/documents/${data.id}`, key, json('PATCH', { result: '東京 is big 日本' }));
        expect((await response.json()).data.words).to.equal(5);
      });
    });

    describe('GET /api/v1/documents/{id}', () => {
      it('reads a document: 200 with data and status', async () => {
        const created = await create();
        const response = await server.get(`/api/v1/documents/${created.id}`, key, { headers: { Accept: 'text/html' } });
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
        expect(await response.json()).to.deep.equal({ data: created, status: 200 });
      });

      it('answers 404 for an id that does not exist and for ids not in canonical form', async () => {
        await create();
        for (const id of ['2', '007', '01', '1e0', '-1', 'abc', '0', '1.0', '99999999999999999999']) {
          const response = await server.get(`/api/v1/documents/${id}`, key);
          expect(response.status, id).to.equal(404);
          expect(await response.json()).to.deep.equal({ message: 'Resource not found.', status: 404 });
        }
      });

      it('reads the same document by every spelling of its path, the fast path and the router alike', async () => {
        const created = await create();
        for (const path of [`/api/v1/documents/${created.id}`, `/api/v1/documents/${created.id}/`, '/api/v1/documents/%31']) {
          const response = await server.get(path, key);
          expect(response.status, path).to.equal(200);
          expect(await response.json(), path).to.deep.equal({ data: created, status: 200 });
        }
        const anonymous = await server.get(`/api/v1/documents/${created.id}`, undefined);
        expect(anonymous.status).to.equal(401);
      });
    });

    describe('PUT and PATCH /api/v1/documents/{id}', () => {
      it('changes only the fields sent, recounts words and moves updated_at', async () => {
        const created = await create();
        now += 60_000;
        const response = await server.get(`/api/v1/documents/${created.id}`, key, form('PUT', { result: 'one two three' }));
        expect(response.status).to.equal(200);
        const body = await response.json();
        expect(body.status).to.equal(200);
        expect(body.data).to.deep.equal({
          ...created,
          result: 'one two three',
          words: 3,
          updated_at: '2026-01-02T03:05:05.678Z',
        });
      });

      it('sets favorite from 1/0/true/false, as a boolean', async () => {
        const { id } = await create();
        for (const [value, expected] of [
          ['1', true],
          ['0', false],
          ['true', true],
          ['false', false],
        ] as const) {
          const response = await server.get(`/api/v1/documents/${id}`, key, form('PATCH', { favorite: value }));
          expect((await response.json()).data.favorite, value).to.equal(expected);
        }
        const response = await server.get(`/api/v1/documents/${id}`, key, json('PATCH', { favorite: true, name: 'Renamed' }));
        expect((await response.json()).data).to.include({ favorite: true, name: 'Renamed' });
      });

      it('answers 422 for each bad field and changes nothing', async () => {
        const created = await create();
        const response = await server.get(
          `/api/v1/documents/${created.id}`,
          key,
          form('PUT', { name: 'x'.repeat(129), result: 'y'.repeat(20481), favorite: 'yes' }),
        );
        expect(response.status).to.equal(422);
        const body = await response.json();
        expect(Object.keys(body.errors)).to.deep.equal(['name', 'result', 'favorite']);
        expect(body.message).to.equal('The name field must not be greater than 128 characters. (and 2 more errors)');
        expect((await (await server.get(`/api/v1/documents/${created.id}`, key)).json()).data).to.deep.equal(created);
      });

      it('accepts a result of exactly 20480 characters', async () => {
        const { id } = await create();
        const response = await server.get(`/api/v1/documents/${id}`, key, json('PUT', { result: 'a'.repeat(20480) }));
        expect(response.status).to.equal(200);
      });

      it('answers 404 for an unknown id, and 415 for another content type', async () => {
        const { id } = await create();
        expect((await server.get('/api/v1/documents/99', key, form('PUT', { name: 'x' }))).status).to.equal(404);
        const response = await server.get(`/api/v1/documents/${id}`, key, {
          method: 'PUT',
          headers: { 'Content-Type': 'text/plain' },
          body: 'x',
        });
        expect(response.status).to.equal(415);
      });
    });

    describe('DELETE /api/v1/documents/{id}', () => {
      it('deletes: 200 with id, object and deleted, then 404', async () => {
        const { id } = await create();
        const response = await server.get(`/api/v1/documents/${id}`, key, { method: 'DELETE' });
        expect(response.status).to.equal(200);
        expect(await response.json()).to.deep.equal({ id, object: 'document', deleted: true, status: 200 });
        expect((await server.get(`/api/v1/documents/${id}`, key)).status).to.equal(404);
        expect((await server.get(`/api/v1/documents/${id}`, key, { method: 'DELETE' })).status).to.equal(404);
        expect((await (await server.get('/api/v1/documents', key)).json()).meta.total).to.equal(0);
      });
    });

    describe('authentication and tenancy', () => {
      it('answers 401 Unauthenticated with WWW-Authenticate for a missing or invalid key', async () => {
        for (const [path, init] of [
          ['/api/v1/documents', {}],
          ['/api/v1/documents/1', {}],
          ['/api/v1/documents', form('POST', { name: 'n', prompt: 'p' })],
          ['/api/v1/templates', {}],
        ] as const) {
          const missing = await server.get(path, undefined, init);
          expect(missing.status).to.equal(401);
          expect(missing.headers.get('www-authenticate')).to.equal('Bearer realm="dossier"');
          expect(await missing.json()).to.deep.equal({ message: 'Unauthenticated.', status: 401 });
          const invalid = await server.get(path, 'not-a-key', init);
          expect(invalid.status).to.equal(401);
          expect(invalid.headers.get('www-authenticate')).to.equal('Bearer realm="dossier", error="invalid_token"');
          expect(await invalid.json()).to.deep.equal({ message: 'Unauthenticated.', status: 401 });
        }
      });

      it('answers 403 for a key without the documents scope', async () => {
        const lookupOnly = await server.key({ owner: 'alice', scopes: ['lookup'] });
        for (const init of [{}, form('POST', { name: 'n', prompt: 'p' })]) {
          const response = await server.get('/api/v1/documents', lookupOnly, init);
          expect(response.status).to.equal(403);
          expect(await response.json()).to.deep.equal({ message: 'This key does not have the "documents" scope.', status: 403 });
        }
      });

      it("answers 404 for another owner's document on GET, PUT, PATCH and DELETE, and leaves it out of lists", async () => {
        const mine = await create({ name: 'Alice doc', prompt: 'p' });
        const bob = await server.key({ owner: 'bob' });
        const bobs = await create({ name: 'Bob doc', prompt: 'p' }, bob);
        for (const init of [{}, form('PUT', { name: 'x' }), form('PATCH', { name: 'x' }), { method: 'DELETE' }]) {
          const response = await server.get(`/api/v1/documents/${mine.id}`, bob, init);
          expect(response.status).to.equal(404);
          expect(await response.json()).to.deep.equal({ message: 'Resource not found.', status: 404 });
        }
        expect((await (await server.get(`/api/v1/documents/${mine.id}`, key)).json()).data).to.deep.equal(mine);
        const bobList = await (await server.get('/api/v1/documents', bob)).json();
        expect(bobList.data.map((d: { id: number }) => d.id)).to.deep.equal([bobs.id]);
        const aliceList = await (await server.get('/api/v1/documents', key)).json();
        expect(aliceList.data.map((d: { id: number }) => d.id)).to.deep.equal([mine.id]);
      });

      it('shares documents between two keys of the same owner', async () => {
        const created = await create();
        const second = await server.key({ owner: 'alice' });
        expect((await server.get(`/api/v1/documents/${created.id}`, second)).status).to.equal(200);
      });

      it('does not count document requests against the lookup quota', async () => {
        const limited = await server.key({ owner: 'carol', dailyLimit: 1 });
        for (let i = 0; i < 3; i += 1) expect((await server.get('/api/v1/documents', limited)).status).to.equal(200);
        const quota = await server.dossier.quotas.peek((await server.dossier.keys.verify(limited))!.id, 1);
        expect(quota.remaining).to.equal(1);
      });
    });

    it('runs the curl session of docs/documents.md: create, list, update, delete', async () => {
      // curl -d sends form-encoded bodies and Accept: */*.
      const curl = (fields: Record<string, string>, method: string): RequestInit => ({
        ...form(method, fields),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: '*/*' },
      });
      const created = await server.get(
        '/api/v1/documents',
        key,
        curl(
          { name: 'Launch', prompt: 'Our coffee subscription for busy developers', template_id: '33', creativity: '0.75' },
          'POST',
        ),
      );
      expect(created.status).to.equal(201);
      const { data } = await created.json();
      expect(data).to.include({ id: 1, name: 'Launch', creativity: 0.75, favorite: false });
      expect(data.template).to.deep.equal({ id: 33, name: 'Tweet' });
      expect(Array.from(data.result as string).length).to.be.at.most(280);
      expect(data.result).to.match(/#\w+/);

      const listed = await (
        await server.get('/api/v1/documents?template_id=33&search=launch', key, { headers: { Accept: 'application/json' } })
      ).json();
      expect(listed.data.map((d: { id: number }) => d.id)).to.deep.equal([1]);
      expect(listed.links.first).to.equal(`${server.url}/api/v1/documents?search=launch&template_id=33&page=1`);
      expect(listed.meta).to.include({ total: 1, per_page: 10, current_page: 1 });
      expect((await (await server.get('/api/v1/documents', key)).json()).meta.total).to.equal(0);

      const updated = await (
        await server.get('/api/v1/documents/1', key, curl({ favorite: '1', result: 'Fresh beans, every Monday.' }, 'PUT'))
      ).json();
      expect(updated.data).to.include({ favorite: true, result: 'Fresh beans, every Monday.', words: 4 });

      expect(await (await server.get('/api/v1/documents/1', key, { method: 'DELETE' })).json()).to.deep.equal({
        id: 1,
        object: 'document',
        deleted: true,
        status: 200,
      });
      expect((await server.get('/api/v1/documents/1', key)).status).to.equal(404);
      expect(await (await server.get('/api/v1/documents')).json()).to.deep.equal({ message: 'Unauthenticated.', status: 401 });
    });

    it('answers a JSON 404 for an unknown path under /api/v1', async () => {
      for (const path of ['/api/v1', '/api/v1/', '/api/v1/nothing', '/api/v1/documents/1/extra']) {
        const response = await server.get(path, key);
        expect(response.status, path).to.equal(404);
        expect(await response.json()).to.deep.equal({ message: 'Resource not found.', status: 404 });
      }
    });
  });
});
