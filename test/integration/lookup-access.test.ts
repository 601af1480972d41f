import { expect } from 'chai';
import { connect } from 'node:net';
import { DossierError } from '../../lib/errors.js';
import type { LookupService } from '../../lib/ports/lookup-service.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

/** Sends raw bytes to the server and returns everything it answers before closing. */
function rawRequest(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const NOW = Date.UTC(2026, 10, 22, 23, 59, 0);
const MIDNIGHT = Date.UTC(2026, 10, 23) / 1000;

eachAdapter(() => {
  describe('interface A over HTTP: keys, scopes, quota and errors', () => {
    let dns: TestDnsServer;
    let server: TestServer;
    let now: number;

    before(async () => {
      dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    });
    after(() => dns.close());

    beforeEach(async () => {
      now = NOW;
      server = await startTestServer({ dnsServers: [dns.address], lookupTimeoutMs: 800, clock: { now: () => now } });
    });
    afterEach(() => server.close());

    const body = (response: Response): Promise<Record<string, unknown>> => response.json() as Promise<Record<string, unknown>>;
    const remaining = (response: Response): number => Number(response.headers.get('X-RateLimit-Remaining'));

    it('answers 401 missing_key, with WWW-Authenticate, without a bearer header', async () => {
      for (const headers of [{}, { Authorization: 'Basic dXNlcjpwYXNz' }, { Authorization: 'dsr_abc' }] as Record<
        string,
        string
      >[]) {
        const response = await server.get('/api/dns?domain=example.test', undefined, { headers });
        expect(response.status).to.equal(401);
        expect(response.headers.get('WWW-Authenticate')).to.equal('Bearer realm="dossier"');
        expect(response.headers.get('X-RateLimit-Limit')).to.equal(null);
        expect(await body(response)).to.deep.include({ status: 'error', code: 'missing_key' });
      }
    });

    it('answers 401 invalid_key for an unknown, empty or revoked key', async () => {
      const { key, secret } = await server.dossier.keys.create({ name: 'soon revoked' });
      await server.dossier.keys.revoke(key.id);
      for (const bad of [secret, 'dsr_' + 'A'.repeat(43), 'nonsense', '', 'two words', `${secret} extra`]) {
        const response = await server.get('/api/dns?domain=example.test', undefined, {
          headers: { Authorization: `Bearer ${bad}` },
        });
        expect(response.status, bad).to.equal(401);
        expect(response.headers.get('WWW-Authenticate')).to.equal('Bearer realm="dossier", error="invalid_token"');
        expect((await body(response)).code).to.equal('invalid_key');
      }
    });

    it('refuses a key from its expiry on with 401 invalid_key, like a revoked one', async () => {
      const secret = await server.key({ expiresAt: '2026-11-23' });
      expect((await server.get('/api/dns?domain=example.test', secret)).status).to.equal(200);
      now = MIDNIGHT * 1000;
      const response = await server.get('/api/dns?domain=example.test', secret);
      expect(response.status).to.equal(401);
      expect((await body(response)).code).to.equal('invalid_key');
    });

    it('sends the RateLimit-Policy and RateLimit fields of the IETF draft beside X-RateLimit-*', async () => {
      const key = await server.key({ dailyLimit: 10 });
      for (const path of ['/api/dns?domain=example.test', '/api/dns?domain=not_a_domain']) {
        const response = await server.get(path, key);
        expect(response.headers.get('RateLimit-Policy'), path).to.equal('"daily";q=10;w=86400');
        expect(response.headers.get('RateLimit'), path).to.equal(`"daily";r=9;t=${MIDNIGHT - Math.floor(NOW / 1000)}`);
      }
    });

    it('asks past the cache with fresh=1: still counted, and its answer refreshes the cache; errors are not cached', async () => {
      const key = await server.key({ dailyLimit: 10 });
      const a = (response: Response): Promise<unknown> => body(response).then((b) => (b.data as { A: unknown }).A);
      await server.get('/api/dns?domain=example.test', key);
      dns.zone = { 'example.test': { A: [{ address: '93.184.216.35', ttl: 600 }] } };
      try {
        const cached = await server.get('/api/dns?domain=example.test', key);
        expect(await a(cached)).to.deep.equal([{ address: '93.184.216.34', ttl: 600 }]);
        const fresh = await server.get('/api/dns?domain=example.test&fresh=1', key);
        expect(fresh.status).to.equal(200);
        expect(remaining(fresh)).to.equal(7);
        const freshBody = await body(fresh);
        expect(freshBody.cached).to.equal(false);
        expect((freshBody.data as { A: unknown }).A).to.deep.equal([{ address: '93.184.216.35', ttl: 600 }]);
        const after = await server.get('/api/dns?domain=example.test', key);
        expect(await a(after)).to.deep.equal([{ address: '93.184.216.35', ttl: 600 }]);
        dns.silent = true;
        expect((await server.get('/api/dns?domain=example.test&fresh=1', key)).status).to.equal(504);
        dns.silent = false;
        const stillCached = await server.get('/api/dns?domain=example.test', key);
        expect(await a(stillCached)).to.deep.equal([{ address: '93.184.216.35', ttl: 600 }]);
      } finally {
        dns.zone = { 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } };
        dns.silent = false;
      }
    });

    it('lets a key read its own usage by day and kind, without counting it', async () => {
      const key = await server.key({ dailyLimit: 10 });
      await server.get('/api/dns?domain=example.test', key);
      await server.get('/api/dns?domain=example.test', key);
      await server.get('/api/dns?domain=not_a_domain', key);
      const response = await server.get('/api/usage', key);
      expect(response.status).to.equal(200);
      const { status, data, cached } = (await body(response)) as {
        status: string;
        data: Record<string, unknown>;
        cached: boolean;
      };
      expect({ status, cached }).to.deep.equal({ status: 'success', cached: false });
      expect(data).to.include({
        daily_limit: 10,
        used_today: 2,
        remaining: 8,
        reset_at: new Date(MIDNIGHT * 1000).toISOString(),
      });
      expect(data.key_id).to.match(/^key_/);
      const history = data.history as Record<string, unknown>[];
      expect(history).to.have.length(30);
      expect(history[0]).to.deep.equal({ date: '2026-10-24', dns: 0, whois: 0, ip: 0, ssl: 0, total: 0 });
      expect(history[29]).to.deep.equal({ date: '2026-11-22', dns: 2, whois: 0, ip: 0, ssl: 0, total: 2 });
      expect(remaining(await server.get('/api/usage', key))).to.equal(8);
      expect((await server.get('/api/usage')).status).to.equal(401);
      const documentsOnly = await server.get('/api/usage', await server.key({ scopes: ['documents'] }));
      expect(documentsOnly.status).to.equal(403);
    });

    it('reports in /api/usage what the key really used today, also after its limit was lowered below it', async () => {
      const key = await server.key({ dailyLimit: 3 });
      await server.get('/api/dns?domain=example.test', key);
      await server.get('/api/dns?domain=example.test', key);
      const [listed] = (await server.dossier.keys.list()).slice(-1);
      await server.dossier.keys.update(listed!.id, { dailyLimit: 1 });
      const { data } = (await body(await server.get('/api/usage', key))) as { data: Record<string, unknown> };
      const history = data.history as { total: number }[];
      expect(data).to.include({ daily_limit: 1, used_today: 2, remaining: 0 });
      expect(history[29]!.total).to.equal(2);
    });

    it('answers 403 insufficient_scope for a documents-only key, and does not count it', async () => {
      const key = await server.key({ scopes: ['documents'], dailyLimit: 10 });
      const response = await server.get('/api/dns?domain=example.test', key);
      expect(response.status).to.equal(403);
      expect((await body(response)).code).to.equal('insufficient_scope');
      expect(remaining(response)).to.equal(10);
    });

    it('counts a success and says so in the X-RateLimit headers', async () => {
      const key = await server.key({ dailyLimit: 10 });
      const response = await server.get('/api/dns?domain=example.test', key, { headers: { Accept: 'text/html' } });
      expect(response.status).to.equal(200);
      expect(response.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
      expect(response.headers.get('X-RateLimit-Limit')).to.equal('10');
      expect(remaining(response)).to.equal(9);
      expect(response.headers.get('X-RateLimit-Reset')).to.equal(String(MIDNIGHT));
    });

    it('does not count a 400, and still sends the headers', async () => {
      const key = await server.key({ dailyLimit: 10 });
      const response = await server.get('/api/dns?domain=http://example.test/', key);
      expect(response.status).to.equal(400);
      expect(await body(response)).to.deep.include({ status: 'error', code: 'invalid_domain' });
      expect(remaining(response)).to.equal(10);
      const missing = await server.get('/api/dns', key);
      expect((await body(missing)).code).to.equal('invalid_domain');
      expect(remaining(missing)).to.equal(10);
    });

    it('counts cached answers, then answers 429 with Retry-After until UTC midnight', async () => {
      const key = await server.key({ dailyLimit: 2 });
      expect((await server.get('/api/dns?domain=example.test', key)).status).to.equal(200);
      const cached = await server.get('/api/dns?domain=example.test', key);
      expect((await body(cached)).cached).to.equal(true);
      expect(remaining(cached)).to.equal(0);
      const refused = await server.get('/api/dns?domain=example.test', key);
      expect(refused.status).to.equal(429);
      expect((await body(refused)).code).to.equal('quota_exceeded');
      expect(refused.headers.get('Retry-After')).to.equal(String(MIDNIGHT - Math.floor(NOW / 1000)));
      expect(remaining(refused)).to.equal(0);
      now = MIDNIGHT * 1000;
      const tomorrow = await server.get('/api/dns?domain=example.test', key);
      expect(tomorrow.status).to.equal(200);
      expect(remaining(tomorrow)).to.equal(1);
      expect(tomorrow.headers.get('X-RateLimit-Reset')).to.equal(String(MIDNIGHT + 86400));
    });

    it('lets exactly the limit through when requests arrive in parallel', async () => {
      const key = await server.key({ dailyLimit: 50 });
      const statuses = await Promise.all(
        Array.from({ length: 80 }, () => server.get('/api/dns?domain=example.test', key).then((r) => r.status)),
      );
      expect(statuses.filter((s) => s === 200)).to.have.length(50);
      expect(statuses.filter((s) => s === 429)).to.have.length(30);
    });

    it('counts an upstream failure (504) against the quota', async () => {
      dns.silent = true;
      try {
        const key = await server.key({ dailyLimit: 10 });
        const response = await server.get('/api/dns?domain=silent.example.test', key);
        expect(response.status).to.equal(504);
        expect((await body(response)).code).to.equal('upstream_timeout');
        expect(remaining(response)).to.equal(9);
      } finally {
        dns.silent = false;
      }
    });

    it('answers the same through the router as through the fast path (other spellings of the path, HEAD)', async () => {
      const key = await server.key({ dailyLimit: 10 });
      const fast = await server.get('/api/dns?domain=example.test', key);
      const routed = await server.get('/api/dns/?domain=example.test', key);
      expect(routed.status).to.equal(200);
      expect(await routed.json()).to.deep.equal({ ...(await fast.json()), cached: true });
      expect(routed.headers.get('X-RateLimit-Remaining')).to.equal('8');
      const head = await server.get('/api/dns?domain=example.test', key, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('X-RateLimit-Remaining')).to.equal('7');
    });

    it('answers requests Node cannot parse with JSON too (unknown method token, oversized URL)', async () => {
      for (const request of [
        'FOO /api/dns HTTP/1.1\r\nHost: x\r\n\r\n',
        `GET /api/dns?domain=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]) {
        const answer = await rawRequest(server.url, request);
        expect(answer).to.match(/^HTTP\/1\.1 4\d\d /);
        expect(answer).to.include('Content-Type: application/json; charset=utf-8');
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).to.deep.include({
          status: 'error',
          code: 'bad_request',
        });
      }
    });

    it("answers what Node cannot parse under /api/v1 with interface B's body", async () => {
      for (const [request, status] of [
        ['FOO /api/v1/documents HTTP/1.1\r\nHost: x\r\n\r\n', 400],
        [`GET /api/v1/documents?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ] as const) {
        const answer = await rawRequest(server.url, request);
        expect(answer).to.match(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(answer).to.include('Content-Type: application/json; charset=utf-8');
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).to.deep.equal({
          message: 'The request could not be read.',
          status,
        });
      }
    });

    it('answers an HTTP/1.1 request without Host like any other, in JSON', async function () {
      // A fetch runtime makes no Request of it: a Request's URL is absolute (@hono/node-server answers 400).
      if (server.adapter === 'fetch') this.skip();
      const key = await server.key({ dailyLimit: 10 });
      const answer = await rawRequest(
        server.url,
        `GET /api/dns?domain=example.test HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).to.match(/^HTTP\/1\.1 200 /);
      expect(answer).to.match(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).to.deep.include({ status: 'success' });
    });

    it('answers unknown paths and methods with JSON', async () => {
      const key = await server.key();
      const missing = await server.get('/api/nothing', key, { headers: { Accept: 'text/html' } });
      expect(missing.status).to.equal(404);
      expect(await body(missing)).to.deep.include({ status: 'error', code: 'not_found' });
      const post = await server.get('/api/dns?domain=example.test', key, { method: 'POST' });
      expect(post.status).to.equal(405);
      expect((await body(post)).code).to.equal('method_not_allowed');
      const options = await server.get('/api/dns?domain=example.test', undefined, { method: 'OPTIONS' });
      expect(options.status).to.equal(405);
      expect(options.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
      expect(options.headers.get('Allow')).to.include('GET');
      expect((await body(options)).code).to.equal('method_not_allowed');
    });
  });

  describe('interface A over HTTP: failures of the server itself', () => {
    it('answers 503 service_unavailable with Retry-After when the key store is down', async () => {
      const server = await startTestServer({ store: 'postgres://postgres@127.0.0.1:1/test' });
      try {
        const response = await server.get('/api/dns?domain=example.test', 'dsr_' + 'A'.repeat(43));
        expect(response.status).to.equal(503);
        expect(response.headers.get('Retry-After')).to.match(/^\d+$/);
        expect(await response.json()).to.deep.include({ status: 'error', code: 'service_unavailable' });
      } finally {
        await server.close();
      }
    });

    it('answers an unexpected exception with a JSON 500 without a stack trace, logged once', async () => {
      const logged: string[] = [];
      const failing: LookupService = {
        parse: (_kind, input) => String(input),
        lookup: async () => {
          throw new TypeError('secret internal detail');
        },
      };
      const server = await startTestServer({
        lookups: failing,
        logger: { info() {}, warn() {}, error: (message) => logged.push(message) },
      });
      try {
        const response = await server.get('/api/dns?domain=example.test', await server.key());
        expect(response.status).to.equal(500);
        const text = await response.text();
        expect(JSON.parse(text)).to.deep.equal({
          status: 'error',
          code: 'internal_error',
          message: 'Something went wrong on our side.',
        });
        expect(text).to.not.include('secret internal detail');
        expect(logged).to.have.length(1);
      } finally {
        await server.close();
      }
    });

    it('answers 501 not_implemented for a lookup a host left out', async () => {
      const notBuilt: LookupService = {
        parse: (_kind, input) => String(input),
        lookup: async () => {
          throw new DossierError('ERR_NOT_IMPLEMENTED', 'Not here.');
        },
      };
      const server = await startTestServer({ lookups: notBuilt });
      try {
        const response = await server.get('/api/ip?ip=8.8.8.8', await server.key());
        expect(response.status).to.equal(501);
        expect((await response.json()).code).to.equal('not_implemented');
      } finally {
        await server.close();
      }
    });
  });
});
