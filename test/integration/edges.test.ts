import { expect } from 'chai';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { ROUTES } from '../../adapters/http/routes.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';

const TOKEN = 'edges-test-admin-token-0123456789abcdefgh';

/** Sends `head` (and `body`) on a socket of its own; answers the status and the parsed JSON body. */
async function raw(
  url: string,
  head: string,
  body: Buffer = Buffer.alloc(0),
): Promise<{ status: number; json: any; text: string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  const chunks: Buffer[] = [];
  for await (const chunk of socket as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    json = undefined;
  }
  return { status: Number(text.split(' ', 2)[1]), json, text };
}

/** CONTRACT §12's edges, on every mount: what a hostile request gets, and that it counts nothing. */
eachAdapter(() => {
  describe('at the edges', function () {
    this.timeout(60_000);
    let dns: TestDnsServer;
    let server: TestServer;
    let key: string;
    before(async () => {
      dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
      server = await startTestServer({ adminToken: TOKEN, dnsServers: [dns.address], workers: false });
      key = await server.key({ name: 'edges', dailyLimit: 100 });
    });
    after(async () => {
      await server?.close();
      await dns?.close();
    });

    const usedToday = async (): Promise<number> => (await (await server.get('/api/usage', key)).json()).data.used_today as number;

    it('refuses two Authorization headers with 400 in each interface’s body, and counts nothing', async () => {
      const before = await usedToday();
      const twice = `Authorization: Bearer ${key}\r\nAuthorization: Bearer ${key}\r\n`;
      const lookup = await raw(
        server.url,
        `GET /api/dns?domain=example.test HTTP/1.1\r\nHost: x\r\n${twice}Connection: close\r\n\r\n`,
      );
      expect([lookup.status, lookup.json]).to.deep.equal([
        400,
        { status: 'error', code: 'invalid_request', message: 'Send one Authorization header with one credential.' },
      ]);
      const documents = await raw(server.url, `GET /api/v1/documents HTTP/1.1\r\nHost: x\r\n${twice}Connection: close\r\n\r\n`);
      expect([documents.status, documents.json]).to.deep.equal([
        400,
        { message: 'Send one Authorization header with one credential.', status: 400 },
      ]);
      const admin = await raw(
        server.url,
        `GET /admin/api/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n`,
      );
      expect(admin.status).to.equal(400);
      const list = await raw(
        server.url,
        `GET /api/dns?domain=example.test HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}, Bearer x\r\nConnection: close\r\n\r\n`,
      );
      expect(list.status).to.equal(400);
      expect(await usedToday()).to.equal(before);
    });

    it('answers several credentials with 400 on every route that reads Authorization, as its document declares', async () => {
      const routes = ROUTES.filter((route) => route.auth !== 'none' && !route.hidden);
      expect(routes.length).to.be.greaterThan(20);
      for (const route of routes) {
        const method = route.method.toUpperCase();
        // The harness checks the answer against the OpenAPI document: the 400 must be declared there.
        const response = await server.get(route.path.replace(/:\w+/g, '1'), undefined, {
          method,
          headers: { Authorization: `Bearer ${key}, Bearer ${key}` },
        });
        expect(response.status, `${method} ${route.path}`).to.equal(400);
      }
    });

    it('matches paths as sent: dot segments and other cases are the JSON 404', async () => {
      for (const path of ['/api/../healthz', '/./healthz', '/api/%2e%2e/healthz', '/api/%2E%2e/healthz', '/HEALTHZ']) {
        const answer = await raw(server.url, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        expect([answer.status, answer.json?.code], path).to.deep.equal([404, 'not_found']);
        expect(answer.text, path).to.match(/x-request-id:/i);
      }
    });

    it('decodes a batch body in gzip, deflate and br, holds the decoded body to 64 KiB, and refuses other encodings', async () => {
      const three = JSON.stringify({ lookups: [{ type: 'ip', ip: '10.0.0.1' }] });
      for (const [encoding, body] of [
        ['gzip', gzipSync(three)],
        ['deflate', deflateSync(three)],
        ['br', brotliCompressSync(three)],
      ] as const) {
        const answer = await server.get('/api/batch', key, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
          body,
        });
        expect(answer.status, encoding).to.equal(200);
        expect((await answer.json()).data[0].status, encoding).to.equal('success');
      }
      // 200 KB of JSON in a few hundred bytes: refused at the limit, never inflated whole.
      const bomb = gzipSync(JSON.stringify({ lookups: [{ type: 'dns', domain: 'a'.repeat(200_000) }] }));
      expect(bomb.length).to.be.below(2000);
      const refused = await server.get('/api/batch', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: bomb,
      });
      expect([refused.status, await refused.json()]).to.deep.equal([
        413,
        { status: 'error', code: 'payload_too_large', message: 'The request body is larger than 64 KiB.' },
      ]);
      const zstd = await server.get('/api/batch', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd' },
        body: three,
      });
      expect([zstd.status, (await zstd.json()).code]).to.deep.equal([415, 'unsupported_encoding']);
      const broken = await server.get('/api/batch', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: 'not gzip',
      });
      expect([broken.status, (await broken.json()).code]).to.deep.equal([400, 'invalid_request']);
    });

    it('answers every body too large of interface A with one code and sentence', async () => {
      const large = JSON.stringify({ name: 'a'.repeat(70_000) });
      const answers = [
        await server.get('/api/batch', key, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: large }),
        await server.get('/api/watches', key, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: large }),
        await server.get('/admin/api/keys', TOKEN, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: large,
        }),
      ];
      for (const answer of answers) {
        expect([answer.status, await answer.json()]).to.deep.equal([
          413,
          { status: 'error', code: 'payload_too_large', message: 'The request body is larger than 64 KiB.' },
        ]);
      }
      const document = await server.get('/api/v1/documents', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: large,
      });
      expect([document.status, await document.json()]).to.deep.equal([
        413,
        { message: 'The request body is too large.', status: 413 },
      ]);
    });

    it('takes a sign-in only from the panel itself: its Origin, or Sec-Fetch-Site: same-origin', async () => {
      const signIn = (headers: Record<string, string>): Promise<Response> =>
        fetch(`${server.url}/admin/sign-in`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
          body: `token=${TOKEN}`,
          redirect: 'manual',
        });
      expect((await signIn({})).status).to.equal(403);
      expect((await signIn({ 'Sec-Fetch-Site': 'cross-site' })).status).to.equal(403);
      expect((await signIn({ Origin: 'http://evil.example', 'Sec-Fetch-Site': 'same-origin' })).status).to.equal(403);
      const own = await signIn({ Origin: new URL(server.url).origin });
      expect([own.status, own.headers.get('Set-Cookie')]).to.satisfy(
        ([status, cookie]: [number, string | null]) => status === 303 && cookie !== null,
      );
      expect((await signIn({ 'Sec-Fetch-Site': 'same-origin' })).status).to.equal(303);
    });

    it('matches the prefix as sent: an escaped prefix gets the app’s answer to any unknown path', async () => {
      const prefixed = await startTestServer({}, { prefix: '/dossier' });
      try {
        const get = (method: string, path: string) =>
          raw(prefixed.url, `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        // The app's answer to a path it does not know, the path as written in it (Fastify names it).
        const unknown = async (method: string, path: string): Promise<[number, string]> => {
          const answer = await get(method, path);
          return [answer.status, answer.text.slice(answer.text.indexOf('\r\n\r\n')).replaceAll(path, '<path>')];
        };
        expect(await unknown('GET', '/%64ossier/healthz')).to.deep.equal(await unknown('GET', '/elsewhere/healthz'));
        expect((await get('GET', '/dossier/healthz')).status).to.equal(200);
        // A method Fastify does not route is Dossier's below the prefix and on the prefix itself, as on
        // every other mount.
        for (const path of ['/dossier/healthz', '/dossier']) {
          const answer = await get('PROPFIND', path);
          expect([answer.status, answer.json?.code], path).to.deep.equal([501, 'not_implemented']);
        }
      } finally {
        await prefixed.close();
      }
    });

    it('names the docs and the document under the prefix in the index', async () => {
      const prefixed = await startTestServer({}, { prefix: '/tools/dossier' });
      try {
        const index = await prefixed.get('/', undefined, { headers: { Accept: 'application/json' } });
        expect(await index.json()).to.include({ docs: '/tools/dossier/docs', openapi: '/tools/dossier/openapi.json' });
      } finally {
        await prefixed.close();
      }
    });
  });
});
