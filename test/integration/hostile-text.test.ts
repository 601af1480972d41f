import { expect } from 'chai';
import { backendCases } from '../contracts/backends.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { emptyNamespaces } from '../support/isolation.js';

const TOKEN = 'hostile-text-admin-token-0123456789abcdef';

/** The hostile kinds of text (CONTRACT §12, "Bad input is the client's fault, never an outage"). */
const NUL = 'a\u0000b';
const LONE = ['high\ud800', '\udc00low', 'pair\udc00\ud800reversed'];
const FOUR_BYTES = 'emoji \u{1F600} math \u{1D54F} gothic \u{10348}';
const RTL = 'rtl \u200f\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd';
/** The longest result, 20,480 characters (code points), 4-byte ones among them, within the 64 KiB body. */
const LONGEST_RESULT = '\u{1F600}'.repeat(16) + '\u20ac'.repeat(20_464);

/** `text` as every store keeps it: each lone surrogate U+FFFD. */
const stored = (text: string): string => (text as string & { toWellFormed(): string }).toWellFormed();

/**
 * Every write route, on every backend and through every mount, takes each kind of hostile text as a
 * client's problem or as text: U+0000 is refused where it enters (documents 422 naming the field,
 * lookups and watches 400, a key field 400 naming it), a lone surrogate is stored as U+FFFD and the
 * write's answer is what a later read returns, 4-byte characters, right-to-left marks and a
 * 20,480-character result are kept as sent. No answer is a 5xx, and no store error is counted.
 */
const { cases, skipped } = backendCases();
for (const backend of cases) {
  describe(`hostile text on ${backend.name}`, function () {
    this.timeout(120_000);
    after(() => backend.cleanup());

    eachAdapter(() => {
      let server: TestServer;
      let key: string;
      const json = (body: unknown): RequestInit => ({
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      });
      const admin = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };

      /** Sends a request; fails on a 5xx. */
      async function send(method: string, path: string, init: RequestInit = {}, as: string | null = key): Promise<Response> {
        const response = await server.get(path, as ?? undefined, { method, ...init });
        expect(response.status, `${method} ${path}`).to.be.below(500);
        return response;
      }

      before(async () => {
        await emptyNamespaces();
        // Lookups of names that exist never reach a resolver here: every name sent is refused first.
        server = await startTestServer({ store: backend.url(), adminToken: TOKEN, workers: false, dnsServers: ['127.0.0.1:9'] });
        key = await server.key({ name: 'hostile' });
      });
      after(() => server?.close());

      it('refuses U+0000 where it enters, naming the field', async () => {
        for (const [body, field] of [
          [{ name: NUL, prompt: 'x' }, 'name'],
          [{ name: 'x', prompt: NUL }, 'prompt'],
        ] as const) {
          const created = await send('POST', '/api/v1/documents', json(body));
          expect(created.status).to.equal(422);
          expect((await created.json()).errors).to.have.keys(field);
        }
        const form = await send('POST', '/api/v1/documents', {
          body: 'name=a%00b&prompt=x',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        expect(form.status).to.equal(422);
        const streamed = await send('POST', '/api/v1/documents', {
          ...json({ name: NUL, prompt: 'x' }),
          headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        });
        expect([streamed.status, (await streamed.json()).errors]).to.deep.equal([
          422,
          { name: [`The name field must not contain the NUL character (U+0000).`] },
        ]);
        const id = (
          (await (await send('POST', '/api/v1/documents', json({ name: 'plain', prompt: 'x' }))).json()).data as { id: number }
        ).id;
        for (const method of ['PATCH', 'PUT']) {
          const changed = await send(method, `/api/v1/documents/${id}`, json({ name: NUL, result: NUL }));
          expect(changed.status).to.equal(422);
          expect((await changed.json()).errors).to.have.keys('name', 'result');
        }
        const listed = await send('GET', '/api/v1/documents?search=a%00b');
        expect([listed.status, Object.keys((await listed.json()).errors)]).to.deep.equal([422, ['search']]);
        for (const path of [
          '/api/dns?domain=a%00b.test',
          '/api/ip?ip=10.0.0.1%00',
          '/api/whois?domain=a%00.test',
          '/api/ssl?domain=a%00.test',
        ]) {
          const lookup = await send('GET', path);
          expect([lookup.status, (await lookup.json()).status], path).to.deep.equal([400, 'error']);
        }
        const batch = await send('POST', '/api/batch', json({ lookups: [{ type: 'dns', domain: NUL }] }));
        expect(batch.status).to.equal(200);
        expect((await batch.json()).data[0]).to.include({ status: 'error', code: 'invalid_domain' });
        for (const body of [
          { type: 'dns', domain: NUL, webhook_url: 'https://hooks.example.test/x' },
          { type: 'dns', domain: 'example.test', webhook_url: `https://hooks.example.test/${NUL}` },
        ]) {
          const watch = await send('POST', '/api/watches', json(body));
          expect(watch.status).to.equal(400);
        }
        // A key field with U+0000 is a 400 naming it, alone, whatever else the body gets wrong (a bad value is a 422).
        const made = (
          await (await send('POST', '/admin/api/keys', { body: JSON.stringify({ name: 'plain' }), headers: admin }, null)).json()
        ).data as { id: string };
        for (const [method, path, body, field] of [
          ['POST', '/admin/api/keys', { name: NUL }, 'name'],
          ['POST', '/admin/api/keys', { name: 'x', owner: NUL, scopes: ['nothing'] }, 'owner'],
          ['PATCH', `/admin/api/keys/${made.id}`, { name: NUL, daily_limit: 0 }, 'name'],
        ] as const) {
          const refused = await send(method, path, { body: JSON.stringify(body), headers: admin }, null);
          expect([refused.status, await refused.json()], `${method} ${field}`).to.deep.equal([
            400,
            {
              status: 'error',
              code: 'invalid_request',
              message: `The ${field} must not contain the NUL character (U+0000).`,
              errors: { [field]: [`The ${field} must not contain the NUL character (U+0000).`] },
            },
          ]);
        }
        const unchanged = await send('GET', '/admin/api/keys?search=plain', { headers: admin }, null);
        expect((await unchanged.json()).data.map((found: { name: string }) => found.name)).to.deep.equal(['plain']);
        for (const field of ['search', 'owner']) {
          const keys = await send('GET', `/admin/api/keys?${field}=a%00b`, { headers: admin }, null);
          expect([keys.status, Object.keys((await keys.json()).errors)]).to.deep.equal([422, [field]]);
        }
        // An id with U+0000 names nothing, before any store reads it.
        for (const [method, path, as] of [
          ['GET', '/admin/api/keys/key_a%00b/usage', TOKEN],
          ['POST', '/admin/api/keys/key_a%00b/revoke', TOKEN],
          ['DELETE', '/admin/api/watches/wat_a%00b', TOKEN],
          ['GET', '/api/watches/wat_a%00b', key],
          ['GET', '/api/v1/documents/1%00', key],
        ] as const) {
          const named = await send(method, path, {}, as);
          expect(named.status, path).to.equal(404);
        }
        // The panel's form answers HTML, which the OpenAPI check does not read.
        const signIn = await fetch(`${server.url}/admin/sign-in`, {
          method: 'POST',
          body: `token=${encodeURIComponent(NUL)}`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(server.url).origin },
          redirect: 'manual',
        });
        expect(signIn.status).to.be.within(300, 499);
      });

      it('stores a lone surrogate as U+FFFD and answers a write with what a later read returns', async () => {
        for (const text of LONE) {
          const created = await send('POST', '/api/v1/documents', json({ name: text, prompt: text }));
          expect(created.status).to.equal(201);
          const document = (await created.json()).data as { id: number; name: string; prompt: string };
          expect([document.name, document.prompt]).to.deep.equal([stored(text), stored(text)]);
          const read = await send('GET', `/api/v1/documents/${document.id}`);
          expect((await read.json()).data).to.deep.equal(document);
          const changed = await send('PATCH', `/api/v1/documents/${document.id}`, json({ name: `${text}2`, result: text }));
          const answer = (await changed.json()).data as { name: string; result: string };
          expect([answer.name, answer.result]).to.deep.equal([stored(`${text}2`), stored(text)]);
          expect((await (await send('GET', `/api/v1/documents/${document.id}`)).json()).data).to.deep.equal(answer);
          const keyCreated = await send(
            'POST',
            '/admin/api/keys',
            { body: JSON.stringify({ name: text }), headers: admin },
            null,
          );
          const made = (await keyCreated.json()).data as { id: string; name: string };
          expect(made.name).to.equal(stored(text));
          const keyRead = await send('GET', `/admin/api/keys/${made.id}/usage`, { headers: admin }, null);
          expect(keyRead.status).to.equal(200);
          const listed = (await (await send('GET', '/admin/api/keys', { headers: admin }, null)).json()).data as {
            id: string;
            name: string;
          }[];
          expect(listed.find((one) => one.id === made.id)?.name).to.equal(stored(text));
        }
        const streamed = await send('POST', '/api/v1/documents', {
          ...json({ name: LONE[0], prompt: LONE[1] }),
          headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        });
        const events = await streamed.text();
        const last = JSON.parse(/event: document\ndata: (.*)\n/.exec(events)![1]!) as { id: number };
        expect((await (await send('GET', `/api/v1/documents/${last.id}`)).json()).data).to.deep.equal(last);
      });

      it('keeps 4-byte characters, right-to-left marks and the longest result as sent', async () => {
        for (const text of [FOUR_BYTES, RTL]) {
          const created = await send('POST', '/api/v1/documents', json({ name: text, prompt: text }));
          expect(created.status).to.equal(201);
          const document = (await created.json()).data as { id: number; name: string };
          expect(document.name).to.equal(text);
          const changed = await send('PATCH', `/api/v1/documents/${document.id}`, json({ result: LONGEST_RESULT }));
          expect(changed.status).to.equal(200);
          const read = (await (await send('GET', `/api/v1/documents/${document.id}`)).json()).data as { result: string };
          expect(read.result).to.equal(LONGEST_RESULT);
          const found = await send('GET', `/api/v1/documents?search=${encodeURIComponent(text)}`);
          expect(found.status).to.equal(200);
          const keyCreated = await send(
            'POST',
            '/admin/api/keys',
            { body: JSON.stringify({ name: text }), headers: admin },
            null,
          );
          expect(keyCreated.status).to.equal(201);
          const watch = await send(
            'POST',
            '/api/watches',
            json({ type: 'dns', domain: text, webhook_url: `https://hooks.example.test/${text}` }),
          );
          expect(watch.status).to.equal(400);
        }
        const tooLong = await send('PATCH', '/api/v1/documents/1', json({ result: `${LONGEST_RESULT}x` }));
        expect(tooLong.status).to.be.oneOf([404, 422]);
      });

      it('counts no store error', async () => {
        const metrics = await (await send('GET', '/metrics', {}, TOKEN)).text();
        expect(metrics).to.match(/^dossier_store_errors_total 0$/m);
      });
    });
  });
}
if (skipped.length > 0)
  describe(`hostile text (skipped: ${skipped.join('; ')})`, () => it('runs where the stores are configured'));
