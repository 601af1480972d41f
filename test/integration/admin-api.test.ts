import { expect } from 'chai';
import Koa from 'koa';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdminRouter } from '../../adapters/koa/index.js';
import { createDossier } from '../../lib/dossier.js';
import { isDossierError } from '../../lib/errors.js';
import { optionsFromEnv } from '../../lib/options.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, testOptions, type TestServer, eachAdapter } from '../support/harness.js';
import { KEY_FIELDS } from '../support/key-fields.js';
import { checkAgainstDocument } from '../support/openapi-check.js';

/** `fetch`, with the answer checked against the OpenAPI document the server serves. */
async function checked(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  await checkAgainstDocument(init.method ?? 'GET', url, response);
  return response;
}

const TOKEN = 'admin-token-for-tests-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

type Json = Record<string, unknown>;

/** A sign-in on the panel of `server`, posted as its own page posts it (with its Origin), not followed. */
function signInTo(server: TestServer, token: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/admin/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url, ...headers },
    body: new URLSearchParams({ token }),
    redirect: 'manual',
  });
}

/** The session cookie an answer sets, as a `Cookie` header carries it. */
function cookieOf(response: Response): string {
  return (response.headers.get('Set-Cookie') ?? '').split(';')[0]!;
}

eachAdapter(() => {
  describe('the admin API', () => {
    let dns: TestDnsServer;
    let server: TestServer;
    let now: number;

    before(async () => {
      dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    });
    after(() => dns.close());

    beforeEach(async () => {
      now = NOW;
      server = await startTestServer({ adminToken: TOKEN, dnsServers: [dns.address], clock: { now: () => now } });
    });
    afterEach(() => server.close());

    /** A request to the admin API with the admin token (or the given headers instead). */
    async function admin(
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
    ): Promise<{ status: number; json: Json; response: Response }> {
      const init: RequestInit = { method, headers: headers ?? { Authorization: `Bearer ${TOKEN}` } };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
      }
      const response = await checked(`${server.url}/admin/api${path}`, init);
      const text = await response.text();
      return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as Json, response };
    }

    const create = async (body: Json = { name: 'ci' }): Promise<Json> => {
      const { status, json } = await admin('POST', '/keys', body);
      expect(status, JSON.stringify(json)).to.equal(201);
      return json.data as Json;
    };

    it('creates a key, shows its plaintext in that one answer, and lists keys newest first without it', async () => {
      const first = await create({
        name: 'first',
        owner: 'acct-1',
        scopes: ['lookup'],
        daily_limit: 7,
        expires_at: '2027-01-31',
      });
      expect(Object.keys(first)).to.deep.equal([...KEY_FIELDS, 'key']);
      expect(first).to.include({
        name: 'first',
        owner: 'acct-1',
        daily_limit: 7,
        revoked_at: null,
        used_today: 0,
        status: 'active',
      });
      expect(first).to.include({ created_at: new Date(NOW).toISOString(), expires_at: '2027-01-31T00:00:00.000Z' });
      expect(first.scopes).to.deep.equal(['lookup']);
      expect(first.key).to.match(/^dsr_/);
      now += 1000;
      const second = await create({ name: 'second' });
      expect(second).to.include({ daily_limit: 1000, expires_at: null });
      expect(second.scopes).to.deep.equal(['lookup', 'documents']);
      expect(second.owner).to.match(/^acct_/);

      const { status, json, response } = await admin('GET', '/keys');
      expect(status).to.equal(200);
      expect(response.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
      const data = json.data as Json[];
      expect(data.map((key) => key.name)).to.deep.equal(['second', 'first']);
      for (const key of data) expect(Object.keys(key)).to.deep.equal(KEY_FIELDS);
      const everything =
        JSON.stringify(json) + (await (await server.get('/admin/api/keys/' + String(first.id) + '/usage', TOKEN)).text());
      expect(everything).to.not.include(String(first.key));
    });

    it('pages the keys newest first, searched and filtered, with the exact total; a bad parameter is 422', async () => {
      const made: Json[] = [];
      for (let n = 0; n < 7; n += 1) {
        made.unshift(await create({ name: n % 2 === 0 ? `billing-${n}` : `search-${n}`, owner: n < 4 ? 'acct-a' : 'acct-b' }));
        now += 1000;
      }
      await admin('POST', `/keys/${String(made[0]!.id)}/revoke`);
      const names = async (query: string): Promise<{ names: string[]; meta: Json }> => {
        const { status, json } = await admin('GET', `/keys?${query}`);
        expect(status, query).to.equal(200);
        return { names: (json.data as Json[]).map((key) => String(key.name)), meta: json.meta as Json };
      };
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { names: string[]; meta: Json } = await names(
          `limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        expect(page.meta.total).to.equal(7);
        seen.push(...page.names);
        cursor = page.meta.next_cursor as string | null;
      } while (cursor !== null);
      expect(seen).to.deep.equal(made.map((key) => key.name));
      expect(await names('search=BILLING')).to.deep.include({ names: ['billing-6', 'billing-4', 'billing-2', 'billing-0'] });
      expect((await names('search=billing&limit=2')).meta).to.include({ total: 4 });
      expect((await names(`search=${String(made[3]!.id).slice(-8)}`)).names).to.deep.equal([made[3]!.name]);
      expect((await names('owner=acct-b')).names).to.deep.equal(['billing-6', 'search-5', 'billing-4']);
      expect(await names('status=revoked')).to.deep.include({ names: ['billing-6'], meta: { total: 1, next_cursor: null } });
      expect((await names('status=active&search=acct-b')).names).to.deep.equal(['search-5', 'billing-4']);
      expect((await names('scope=documents')).meta).to.include({ total: 7 });
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=501', 'limit'],
        ['status=gone', 'status'],
        ['scope=everything', 'scope'],
        ['cursor=nonsense', 'cursor'],
        ['search=', 'search'],
      ]) {
        const { status, json } = await admin('GET', `/keys?${query}`);
        expect(status, query).to.equal(422);
        expect(json.code, query).to.equal('invalid_request');
        expect(json.errors, query).to.have.property(field!);
      }
    });

    it('counts lookups in used_today and in the usage by day and kind', async () => {
      const key = await create({ name: 'user', daily_limit: 5 });
      for (let i = 0; i < 3; i++)
        expect((await server.get('/api/dns?domain=example.test', String(key.key))).status).to.equal(200);
      const listed = ((await admin('GET', '/keys')).json.data as Json[])[0]!;
      expect(listed).to.include({ used_today: 3, daily_limit: 5 });

      const usage = await admin('GET', `/keys/${String(key.id)}/usage?days=3`);
      expect(usage.status).to.equal(200);
      expect(usage.json.data).to.deep.equal([
        { date: '2026-11-21', dns: 0, whois: 0, ip: 0, ssl: 0, total: 0 },
        { date: '2026-11-22', dns: 0, whois: 0, ip: 0, ssl: 0, total: 0 },
        { date: '2026-11-23', dns: 3, whois: 0, ip: 0, ssl: 0, total: 3 },
      ]);
      expect((await admin('GET', `/keys/${String(key.id)}/usage`)).json.data).to.have.length(30);
      expect((await admin('GET', `/keys/${String(key.id)}/usage?days=90`)).json.data).to.have.length(90);
    });

    it('changes name, scopes, limit and expiry, and only what is sent', async () => {
      const key = await create({ name: 'before', daily_limit: 3 });
      const secret = String(key.key);
      const changed = await admin('PATCH', `/keys/${String(key.id)}`, { daily_limit: 1 });
      expect(changed.status).to.equal(200);
      expect(Object.keys(changed.json.data as Json)).to.deep.equal(KEY_FIELDS);
      expect(changed.json.data).to.include({ name: 'before', daily_limit: 1 });
      expect((await server.get('/api/dns?domain=example.test', secret)).status).to.equal(200);
      expect((await server.get('/api/dns?domain=example.test', secret)).status).to.equal(429);

      const renamed = await admin('PATCH', `/keys/${String(key.id)}`, {
        name: 'after',
        scopes: ['documents'],
        daily_limit: null,
        expires_at: '2026-12-01T00:00:00Z',
      });
      expect(renamed.json.data).to.include({ name: 'after', daily_limit: 1000, expires_at: '2026-12-01T00:00:00.000Z' });
      expect((renamed.json.data as Json).scopes).to.deep.equal(['documents']);
      expect((await server.get('/api/dns?domain=example.test', secret)).status).to.equal(403);
      const forever = await admin('PATCH', `/keys/${String(key.id)}`, { expires_at: null });
      expect(forever.json.data).to.include({ expires_at: null, name: 'after' });
    });

    it('refuses an expired key like a revoked one, and reports it as expired', async () => {
      const key = await create({ name: 'short-lived', expires_at: '2026-11-24' });
      expect((await server.get('/api/dns?domain=example.test', String(key.key))).status).to.equal(200);
      now = Date.UTC(2026, 10, 24);
      const refused = await server.get('/api/dns?domain=example.test', String(key.key));
      expect(refused.status).to.equal(401);
      expect(await refused.json()).to.include({ code: 'invalid_key' });
      expect(((await admin('GET', '/keys')).json.data as Json[])[0]).to.include({ status: 'expired' });
    });

    it('revokes at once, and revoking twice is not an error', async () => {
      const key = await create();
      const revoked = await admin('POST', `/keys/${String(key.id)}/revoke`);
      expect(revoked.status).to.equal(200);
      expect(revoked.json.data).to.include({ status: 'revoked', revoked_at: new Date(NOW).toISOString() });
      expect((await server.get('/api/dns?domain=example.test', String(key.key))).status).to.equal(401);
      now += 5000;
      const again = await admin('POST', `/keys/${String(key.id)}/revoke`);
      expect(again.status).to.equal(200);
      expect(again.json.data).to.include({ revoked_at: new Date(NOW).toISOString() });
    });

    it('rolls a secret: the new one is shown once, the old one works for grace_seconds, then not', async () => {
      const key = await create();
      const old = String(key.key);
      const rolled = await admin('POST', `/keys/${String(key.id)}/roll`, { grace_seconds: 60 });
      expect(rolled.status).to.equal(200);
      const data = rolled.json.data as Json;
      expect(Object.keys(data)).to.deep.equal([...KEY_FIELDS, 'key']);
      expect(data.id).to.equal(key.id);
      expect(data.key).to.match(/^dsr_/).and.not.equal(old);
      expect((await server.get('/api/dns?domain=example.test', old)).status).to.equal(200);
      expect((await server.get('/api/dns?domain=example.test', String(data.key))).status).to.equal(200);
      now += 60_000;
      expect((await server.get('/api/dns?domain=example.test', old)).status).to.equal(401);
      expect((await server.get('/api/dns?domain=example.test', String(data.key))).status).to.equal(200);

      // Without grace_seconds (default 0), the old secret stops at once.
      const again = await admin('POST', `/keys/${String(key.id)}/roll`);
      expect(again.status).to.equal(200);
      expect((await server.get('/api/dns?domain=example.test', String(data.key))).status).to.equal(401);
      expect((await server.get('/api/dns?domain=example.test', String((again.json.data as Json).key))).status).to.equal(200);
      expect(JSON.stringify((await admin('GET', '/keys')).json)).to.not.include(String((again.json.data as Json).key));

      // A revoked key gets no new secret: it could not work.
      await admin('POST', `/keys/${String(key.id)}/revoke`);
      const refused = await admin('POST', `/keys/${String(key.id)}/roll`);
      expect(refused.status).to.equal(422);
      expect(refused.json).to.deep.include({ status: 'error', code: 'invalid_request' });
      expect(refused.json.errors).to.deep.equal({
        id: ['The key is revoked, so it cannot be rolled; create a new key instead.'],
      });
    });

    it('answers bad input with the clear 4xx, and changes nothing stored', async () => {
      const key = await create({ name: 'steady', daily_limit: 10 });
      const id = String(key.id);
      const before = JSON.stringify((await admin('GET', '/keys')).json);
      const long = 'n'.repeat(10_000);
      const cases: [string, string, unknown, number, string, string?][] = [
        ['POST', '/keys', { name: long }, 422, 'invalid_request', 'name'],
        ['POST', '/keys', { name: 'x', daily_limit: -1 }, 422, 'invalid_request', 'daily_limit'],
        ['POST', '/keys', { name: 'x', daily_limit: '10' }, 422, 'invalid_request', 'daily_limit'],
        ['POST', '/keys', { name: 'x', daily_limit: 1.5 }, 422, 'invalid_request', 'daily_limit'],
        ['POST', '/keys', { name: 'x', expires_at: '2020-01-01' }, 422, 'invalid_request', 'expires_at'],
        ['POST', '/keys', { name: 'x', expires_at: 'tomorrow' }, 422, 'invalid_request', 'expires_at'],
        ['POST', '/keys', { name: 'x', scopes: 'lookup' }, 422, 'invalid_request', 'scopes'],
        ['POST', '/keys', { name: 'x', scopes: ['admin'] }, 422, 'invalid_request', 'scopes'],
        ['POST', '/keys', { name: 'x', owner: 'a b' }, 422, 'invalid_request', 'owner'],
        ['POST', '/keys', { name: 42 }, 422, 'invalid_request', 'name'],
        ['POST', '/keys', {}, 422, 'invalid_request', 'name'],
        ['POST', '/keys', { name: 'x', id: 'key_mine' }, 422, 'invalid_request', 'id'],
        ['POST', '/keys', '{"name":"x","__proto__":{"id":"key_mine"}}', 422, 'invalid_request', '__proto__'],
        ['PATCH', `/keys/${id}`, '{"__proto__":{"owner":"someone-else"}}', 422, 'invalid_request', '__proto__'],
        ['POST', '/keys', 'name=x', 422, 'invalid_request', 'body'],
        ['POST', '/keys', '{"name":', 422, 'invalid_request', 'body'],
        ['POST', '/keys', '["x"]', 422, 'invalid_request', 'body'],
        ['POST', '/keys', JSON.stringify({ name: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
        ['PATCH', `/keys/${id}`, { daily_limit: -1 }, 422, 'invalid_request', 'daily_limit'],
        ['PATCH', `/keys/${id}`, { name: long }, 422, 'invalid_request', 'name'],
        ['PATCH', `/keys/${id}`, { name: '' }, 422, 'invalid_request', 'name'],
        ['PATCH', `/keys/${id}`, { expires_at: '2026-11-23T11:59:59Z' }, 422, 'invalid_request', 'expires_at'],
        ['PATCH', `/keys/${id}`, { scopes: [] }, 422, 'invalid_request', 'scopes'],
        ['PATCH', `/keys/${id}`, { owner: 'someone-else' }, 422, 'invalid_request', 'owner'],
        ['PATCH', `/keys/${id}`, { name: 'ok', daily_limit: 0 }, 422, 'invalid_request', 'daily_limit'],
        ['PATCH', `/keys/${id}`, 'not json', 422, 'invalid_request', 'body'],
        ['PATCH', '/keys/key_0000000000000000', { name: 'ghost' }, 404, 'not_found'],
        ['POST', '/keys/key_0000000000000000/revoke', undefined, 404, 'not_found'],
        ['POST', '/keys/nope/roll', undefined, 404, 'not_found'],
        ['POST', `/keys/${id}/roll`, { grace_seconds: -1 }, 422, 'invalid_request', 'grace_seconds'],
        ['POST', `/keys/${id}/roll`, { grace_seconds: '60' }, 422, 'invalid_request', 'grace_seconds'],
        ['POST', `/keys/${id}/roll`, '{', 422, 'invalid_request', 'body'],
        ['POST', `/keys/${id}/revoke`, '{', 422, 'invalid_request', 'body'],
        ['GET', '/keys/nope/usage', undefined, 404, 'not_found'],
        ['GET', `/keys/${id}/usage?days=0`, undefined, 422, 'invalid_request', 'days'],
        ['GET', `/keys/${id}/usage?days=91`, undefined, 422, 'invalid_request', 'days'],
        ['GET', `/keys/${id}/usage?days=ten`, undefined, 422, 'invalid_request', 'days'],
      ];
      for (const [method, path, body, status, code, field] of cases) {
        const label = `${method} ${path} ${typeof body === 'string' ? body.slice(0, 40) : JSON.stringify(body)?.slice(0, 60)}`;
        const answer = await admin(method, path, body);
        expect(answer.status, label).to.equal(status);
        expect(answer.json, label).to.include({ status: 'error', code });
        expect(answer.json.message, label).to.be.a('string');
        if (field !== undefined) expect(Object.keys(answer.json.errors as Json), label).to.include(field);
        expect(JSON.stringify((await admin('GET', '/keys')).json), `${label} changed nothing`).to.equal(before);
      }
      // One answer names every bad field.
      const many = await admin('POST', '/keys', { name: '', daily_limit: -1, expires_at: '2000-01-01', color: 'red' });
      expect(Object.keys(many.json.errors as Json)).to.have.members(['name', 'daily_limit', 'expires_at', 'color']);
      expect(await server.dossier.keys.get(id)).to.include({ name: 'steady', dailyLimit: 10, revokedAt: null });
    });

    it('refuses a missing or wrong token on every route, and changes nothing', async () => {
      const key = await create({ name: 'guarded' });
      const id = String(key.id);
      const before = JSON.stringify((await admin('GET', '/keys')).json);
      const routes: [string, string, unknown][] = [
        ['GET', '/keys', undefined],
        ['POST', '/keys', { name: 'intruder' }],
        ['PATCH', `/keys/${id}`, { name: 'stolen' }],
        ['POST', `/keys/${id}/revoke`, undefined],
        ['POST', `/keys/${id}/roll`, undefined],
        ['GET', `/keys/${id}/usage`, undefined],
      ];
      for (const [method, path, body] of routes) {
        const missing = await admin(method, path, body, {});
        expect(missing.status, `${method} ${path}`).to.equal(401);
        expect(missing.json).to.include({ status: 'error', code: 'missing_key' });
        expect(missing.response.headers.get('WWW-Authenticate')).to.equal('Bearer realm="dossier"');
        for (const wrong of [TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), 'x', String(key.key)]) {
          const refused = await admin(method, path, body, { Authorization: `Bearer ${wrong}` });
          expect(refused.status, `${method} ${path} with ${wrong}`).to.equal(401);
          expect(refused.json).to.include({ code: 'invalid_key' });
          // Each wrong token counts toward the address's lock-out: these are spread over minutes.
          now += 61_000;
        }
        const basic = await admin(method, path, body, {
          Authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`,
        });
        expect(basic.status).to.equal(401);
        // As on interface A (docs/contract.md §2): no "Authorization: Bearer" header is missing_key.
        expect(basic.json).to.include({ code: 'missing_key' });
        expect(basic.response.headers.get('WWW-Authenticate')).to.equal('Bearer realm="dossier"');
      }
      expect(JSON.stringify((await admin('GET', '/keys')).json)).to.equal(before);
      expect((await server.get('/api/dns?domain=example.test', String(key.key))).status).to.equal(200);
    });

    it('answers 503 while the store is down', async () => {
      await server.dossier.close();
      const answer = await admin('GET', '/keys');
      expect(answer.status).to.equal(503);
      expect(answer.json).to.include({ code: 'service_unavailable' });
    });
  });

  describe('the admin session', () => {
    let server: TestServer;
    let now: number;

    beforeEach(async () => {
      now = NOW;
      server = await startTestServer({ adminToken: TOKEN, clock: { now: () => now } });
    });
    afterEach(() => server.close());

    const signIn = (token: string, headers: Record<string, string> = {}): Promise<Response> => signInTo(server, token, headers);

    it('signs in with an HttpOnly, SameSite=Strict cookie that reads and, with its Origin, writes', async () => {
      const response = await signIn(TOKEN);
      expect(response.status).to.equal(303);
      expect(response.headers.get('Location')).to.equal('/admin');
      const setCookie = response.headers.get('Set-Cookie') ?? '';
      expect(setCookie).to.match(/^dossier_admin=[^;]+; path=\/admin; expires=[^;]+; samesite=strict; httponly$/);
      expect(setCookie).to.not.include(TOKEN);
      const cookie = cookieOf(response);

      const listed = await checked(`${server.url}/admin/api/keys`, { headers: { Cookie: cookie } });
      expect(listed.status).to.equal(200);
      const page = await fetch(`${server.url}/admin`, { headers: { Cookie: cookie } });
      expect(await page.text()).to.include('Create key');

      const body = JSON.stringify({ name: 'from-the-page' });
      const created = await checked(`${server.url}/admin/api/keys`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: server.url },
        body,
      });
      expect(created.status).to.equal(201);
      const id = String(((await created.json()) as { data: Json }).data.id);

      // A write with the cookie but no Origin, or another one, is refused, and changes nothing.
      for (const origin of [undefined, 'https://evil.example', server.url.replace('127.0.0.1', 'localhost'), 'null']) {
        const headers: Record<string, string> = { Cookie: cookie };
        if (origin !== undefined) headers.Origin = origin;
        for (const [method, path, payload] of [
          ['POST', '/keys', body],
          ['PATCH', `/keys/${id}`, '{"name":"hijacked"}'],
          ['POST', `/keys/${id}/revoke`, undefined],
          ['POST', `/keys/${id}/roll`, undefined],
        ] as const) {
          const refused = await checked(`${server.url}/admin/api${path}`, { method, headers, body: payload });
          expect(refused.status, `${method} ${path} from ${origin}`).to.equal(403);
          expect(await refused.json()).to.include({ status: 'error', code: 'invalid_origin' });
        }
      }
      const keys = await server.dossier.keys.list();
      expect(keys).to.have.length(1);
      expect(keys[0]).to.include({ name: 'from-the-page', revokedAt: null });
    });

    it('marks the cookie Secure when the request came over HTTPS (through a trusted proxy)', async () => {
      const proxied = await startTestServer({ adminToken: TOKEN }, { trustProxy: true });
      try {
        const response = await fetch(`${proxied.url}/admin/sign-in`, {
          method: 'POST',
          headers: {
            'X-Forwarded-Proto': 'https',
            'Content-Type': 'application/x-www-form-urlencoded',
            'Sec-Fetch-Site': 'same-origin',
          },
          body: `token=${TOKEN}`,
          redirect: 'manual',
        });
        expect(response.status).to.equal(303);
        expect(response.headers.get('Set-Cookie')).to.match(/; secure; httponly$/);
      } finally {
        await proxied.close();
      }
    });

    it('signs out: the cookie is cleared and no longer works', async () => {
      const cookie = cookieOf(await signIn(TOKEN));
      const foreign = await fetch(`${server.url}/admin/sign-out`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: 'https://evil.example' },
        redirect: 'manual',
      });
      expect(foreign.status).to.equal(403);
      expect((await checked(`${server.url}/admin/api/keys`, { headers: { Cookie: cookie } })).status).to.equal(200);
      const out = await fetch(`${server.url}/admin/sign-out`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: server.url },
        redirect: 'manual',
      });
      expect(out.status).to.equal(303);
      expect(out.headers.get('Set-Cookie')).to.match(/^dossier_admin=; path=\/admin; expires=Thu, 01 Jan 1970/);
      const after = await checked(`${server.url}/admin/api/keys`, { headers: { Cookie: cookie } });
      expect(after.status).to.equal(401);
      expect(await after.json()).to.include({ code: 'invalid_key' });
      expect(await (await fetch(`${server.url}/admin`, { headers: { Cookie: cookie } })).text()).to.include('Admin token');
    });

    it('refuses forged and expired session cookies', async () => {
      const cookie = cookieOf(await signIn(TOKEN));
      const [name, value] = cookie.split('=') as [string, string];
      const forged = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'AB' : 'AA'}`;
      const longer = `${name}=${value.replace(/\.(\d+)\./, (_, ms: string) => `.${Number(ms) + 86_400_000}.`)}`;
      for (const bad of [forged, longer, `${name}=nonsense`]) {
        expect((await checked(`${server.url}/admin/api/keys`, { headers: { Cookie: bad } })).status, bad).to.equal(401);
      }
      now += 8 * 3600 * 1000;
      expect((await checked(`${server.url}/admin/api/keys`, { headers: { Cookie: cookie } })).status).to.equal(401);
    });

    it('says so on the page when the token is wrong, and locks an address out after five wrong tries in a minute', async () => {
      for (let i = 1; i <= 4; i++) {
        const wrong = await signIn(`wrong-${i}`);
        expect(wrong.status).to.equal(401);
        expect(wrong.headers.get('Set-Cookie')).to.equal(null);
        expect(await wrong.text()).to.include('That admin token is wrong.');
        now += 1000;
      }
      expect((await signIn('wrong-5')).status).to.equal(401);
      const locked = await signIn(TOKEN);
      expect(locked.status).to.equal(429);
      expect(locked.headers.get('Retry-After')).to.equal('60');
      expect(locked.headers.get('Set-Cookie')).to.equal(null);
      expect(await locked.text()).to.include('Try again in 60 seconds');
      now += 59_000;
      expect((await signIn(TOKEN)).status).to.equal(429);
      now += 1000;
      expect((await signIn(TOKEN)).status).to.equal(303);
    });

    it('counts wrong bearer tokens on the admin API and /metrics toward the same lock-out: five in a minute shut the address out of all three for a minute', async () => {
      const cookie = cookieOf(await signIn(TOKEN));
      const bearer = (path: string, token: string): Promise<Response> =>
        checked(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      // A right token forgets the wrong ones before it, as a right sign-in does.
      for (let i = 0; i < 4; i++) expect((await bearer('/admin/api/keys', 'wrong')).status).to.equal(401);
      expect((await bearer('/admin/api/keys', TOKEN)).status).to.equal(200);
      expect((await bearer('/admin/api/keys', 'wrong')).status).to.equal(401);
      expect((await bearer('/metrics', 'wrong')).status).to.equal(401);
      expect((await bearer('/metrics', `${TOKEN}x`)).status).to.equal(401);
      expect((await signIn('wrong')).status).to.equal(401);
      const fifth = await bearer('/admin/api/keys/key_1/usage', 'wrong');
      expect(fifth.status).to.equal(401);

      for (const path of ['/admin/api/keys', '/metrics']) {
        const locked = await bearer(path, TOKEN);
        expect(locked.status, path).to.equal(429);
        expect(locked.headers.get('Retry-After')).to.equal('60');
        expect(await locked.json()).to.include({ status: 'error', code: 'locked_out' });
      }
      const withCookie = await checked(`${server.url}/admin/api/keys`, { headers: { Cookie: cookie } });
      expect(withCookie.status).to.equal(429);
      expect((await signIn(TOKEN)).status).to.equal(429);
      now += 60_000;
      expect((await bearer('/admin/api/keys', TOKEN)).status).to.equal(200);
      expect((await bearer('/metrics', TOKEN)).status).to.equal(200);
    });

    it('refuses a sign-in posted from another site', async () => {
      const response = await signIn(TOKEN, { Origin: 'https://evil.example' });
      expect(response.status).to.equal(403);
      expect(response.headers.get('Set-Cookie')).to.equal(null);
    });

    it('counts only the wrong tries of the last minute', async () => {
      for (let i = 0; i < 4; i++) expect((await signIn('wrong')).status).to.equal(401);
      now += 60_001;
      for (let i = 0; i < 4; i++) expect((await signIn('wrong')).status).to.equal(401);
      expect((await signIn(TOKEN)).status).to.equal(303);
    });

    it('serves the page under a strict CSP, with one script and one stylesheet of its own and nothing inline', async () => {
      const cookie = cookieOf(await signIn(TOKEN));
      const { secret } = await server.dossier.keys.create({ name: '<b>bold</b>' });
      for (const [path, headers] of [
        ['/admin', {}],
        ['/admin', { Cookie: cookie }],
        [`/admin/keys/${(await server.dossier.keys.list())[0]!.id}`, { Cookie: cookie }],
      ] as const) {
        const response = await fetch(server.url + path, { headers });
        expect(response.status).to.equal(200);
        expect(response.headers.get('Content-Type')).to.equal('text/html; charset=utf-8');
        const csp = response.headers.get('Content-Security-Policy') ?? '';
        expect(csp).to.include("default-src 'none'").and.include("script-src 'self'").and.include("style-src 'self'");
        expect(csp).to.not.include('unsafe');
        const html = await response.text();
        expect(html.match(/<script\b[^>]*>/g)).to.deep.equal(['<script src="/admin/assets/admin.js" defer>']);
        expect(html).to.not.match(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
        expect(html).to.not.match(/(?:src|href)="(?:https?:)?\/\//);
        expect(html).to.not.include('<b>bold</b>');
        expect(html).to.not.include(secret);
      }
      const script = await fetch(`${server.url}/admin/assets/admin.js`);
      expect(script.headers.get('Content-Type')).to.equal('text/javascript; charset=utf-8');
      const css = await fetch(`${server.url}/admin/assets/admin.css`);
      expect(css.headers.get('Content-Type')).to.equal('text/css; charset=utf-8');
      expect(await css.text()).to.include('@media (max-width');
    });

    it('sends a detail page without a session back to sign-in, and answers unknown keys and a store outage in HTML', async () => {
      const { key } = await server.dossier.keys.create({ name: 'shown' });
      const anonymous = await fetch(`${server.url}/admin/keys/${key.id}`, { redirect: 'manual' });
      expect(anonymous.status).to.equal(303);
      expect(anonymous.headers.get('Location')).to.equal('/admin');
      const cookie = cookieOf(await signIn(TOKEN));
      const shown = await fetch(`${server.url}/admin/keys/${key.id}`, { headers: { Cookie: cookie } });
      expect(shown.status).to.equal(200);
      expect(await shown.text())
        .to.include('<h1>shown</h1>')
        .and.include('role="img" aria-label="0 lookups in total from 2026-10-25 to 2026-11-23"');
      const missing = await fetch(`${server.url}/admin/keys/key_0000000000000000`, { headers: { Cookie: cookie } });
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('Content-Type')).to.equal('text/html; charset=utf-8');
      expect(await missing.text()).to.include('No such key');
      await server.dossier.close();
      for (const path of ['/admin', `/admin/keys/${key.id}`]) {
        const down = await fetch(server.url + path, { headers: { Cookie: cookie } });
        expect(down.status, path).to.equal(503);
        expect(down.headers.get('Content-Type')).to.equal('text/html; charset=utf-8');
        expect(await down.text()).to.include('The key store is not answering');
      }
    });

    it('works mounted under a host prefix', async () => {
      const prefixed = await startTestServer({ adminToken: TOKEN }, { prefix: '/tools/dossier' });
      const url = prefixed.url.replace(/\/tools\/dossier$/, '');
      try {
        const signedIn = await fetch(`${url}/tools/dossier/admin/sign-in`, {
          method: 'POST',
          headers: { 'Sec-Fetch-Site': 'same-origin' },
          body: new URLSearchParams({ token: TOKEN }),
          redirect: 'manual',
        });
        expect(signedIn.status).to.equal(303);
        expect(signedIn.headers.get('Location')).to.equal('/tools/dossier/admin');
        expect(signedIn.headers.get('Set-Cookie')).to.include('path=/tools/dossier/admin;');
        const page = await (await fetch(`${url}/tools/dossier/admin`, { headers: { Cookie: cookieOf(signedIn) } })).text();
        expect(page).to.include('src="/tools/dossier/admin/assets/admin.js"').and.include('data-base="/tools/dossier/admin"');
        expect(
          (await fetch(`${url}/tools/dossier/admin/api/keys`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status,
        ).to.equal(200);
      } finally {
        await prefixed.close();
      }
    });
  });

  describe('the admin session on two processes sharing a store', () => {
    let dir: string;
    let first: TestServer;
    let second: TestServer;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dossier-admin-'));
      const options = { adminToken: TOKEN, store: `sqlite://${join(dir, 'store.sqlite')}` };
      first = await startTestServer(options);
      second = await startTestServer(options);
    });
    afterEach(async () => {
      await Promise.all([first.close(), second.close()]);
      rmSync(dir, { recursive: true, force: true });
    });

    const keysWith = async (server: TestServer, cookie: string): Promise<number> =>
      (await fetch(`${server.url}/admin/api/keys`, { headers: { Cookie: cookie } })).status;

    it('ends a session on both when it signs out on one', async () => {
      const cookie = cookieOf(await signInTo(first, TOKEN));
      expect([await keysWith(first, cookie), await keysWith(second, cookie)]).to.deep.equal([200, 200]);
      const out = await fetch(`${first.url}/admin/sign-out`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: first.url },
        redirect: 'manual',
      });
      expect(out.status).to.equal(303);
      expect([await keysWith(first, cookie), await keysWith(second, cookie)]).to.deep.equal([401, 401]);
      const page = await fetch(`${second.url}/admin`, { headers: { Cookie: cookie } });
      expect(await page.text()).to.include('Admin token');
    });

    it('locks an address out on both after five wrong tries spread over them, also when they are made at once', async () => {
      const wrong = await Promise.all([first, second, first, second].map((server, i) => signInTo(server, `wrong-${i}`)));
      expect(wrong.map((response) => response.status)).to.deep.equal([401, 401, 401, 401]);
      const fifth = await signInTo(second, 'wrong-5');
      expect(fifth.status).to.equal(401);
      expect(await fifth.text()).to.include('sign-in is locked for a minute');
      for (const server of [first, second]) expect((await signInTo(server, TOKEN)).status).to.equal(429);
    });

    it('answers a burst of wrong tries made at once with five 401s and then 429s, and stays locked for the right token', async () => {
      const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => signInTo(i % 2 ? second : first, `wrong-${i}`)));
      const statuses = burst.map((response) => response.status).sort();
      expect(statuses).to.deep.equal([...Array<number>(5).fill(401), ...Array<number>(7).fill(429)]);
      for (const server of [first, second]) expect((await signInTo(server, TOKEN)).status).to.equal(429);
    });
  });

  describe('the admin panel turned off or misconfigured', () => {
    it('answers /admin with a page that says how to turn it on, and /admin/api/… with 404', async () => {
      const server = await startTestServer();
      try {
        const page = await server.get('/admin');
        expect(page.status).to.equal(200);
        expect(page.headers.get('Content-Type')).to.equal('text/html; charset=utf-8');
        const html = await page.text();
        expect(html).to.include('The administration panel is off').and.include('DOSSIER_ADMIN_TOKEN');
        for (const [method, path] of [
          ['GET', '/admin/api/keys'],
          ['POST', '/admin/api/keys'],
          ['PATCH', '/admin/api/keys/key_1'],
          ['POST', '/admin/api/keys/key_1/revoke'],
          ['POST', '/admin/api/keys/key_1/roll'],
          ['GET', '/admin/api/keys/key_1/usage'],
          ['POST', '/admin/sign-in'],
        ] as const) {
          const answer = await server.get(path, undefined, { method, headers: { Authorization: `Bearer ${TOKEN}` } });
          expect(answer.status, `${method} ${path}`).to.equal(404);
          expect(await answer.json()).to.include({ status: 'error', code: 'not_found' });
        }
      } finally {
        await server.close();
      }
    });

    it('refuses to start with an admin token shorter than 32 characters, naming it', () => {
      const short = 'x'.repeat(31);
      expect(() => createDossier(testOptions({ adminToken: short }))).to.throw(/^adminToken must be at least 32 characters/);
      try {
        optionsFromEnv({ DOSSIER_ADMIN_TOKEN: short });
        expect.fail('accepted a short token');
      } catch (error) {
        expect(isDossierError(error, 'ERR_CONFIG_INVALID')).to.equal(true);
        expect((error as Error).message).to.match(/^DOSSIER_ADMIN_TOKEN must be at least 32 characters/);
        expect((error as Error).message).to.not.include(short);
      }
      expect(optionsFromEnv({ DOSSIER_ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).to.equal('x'.repeat(32));
    });
  });
});

describe('createAdminRouter (dossier/koa): the panel alone in a Koa app', () => {
  it('answers the panel and its API under its prefix, and passes every other path on to the app', async () => {
    const dossier = createDossier(testOptions({ adminToken: TOKEN }));
    const app = new Koa();
    app.use(createAdminRouter(dossier, { prefix: '/tools' }).routes());
    app.use((ctx) => {
      ctx.body = { own: ctx.path };
    });
    const http = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const keys = await fetch(`${url}/tools/admin/api/keys`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(keys.status).to.equal(200);
      expect(await keys.json()).to.deep.equal({ data: [], meta: { total: 0, next_cursor: null } });
      expect((await fetch(`${url}/tools/admin/nope`)).status).to.equal(404);
      for (const path of ['/tools/api/dns', '/tools/healthz', '/elsewhere']) {
        expect(await (await fetch(url + path)).json(), path).to.deep.equal({ own: path });
      }
    } finally {
      http.close();
      await dossier.close();
    }
  });
});
