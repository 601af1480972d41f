import { expect } from 'chai';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';

/** A short wait between two reads of something another part of the process is about to change. */
const pause = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 10));

eachAdapter(() => {
  describe('the watches API over HTTP', () => {
    let dns: TestDnsServer;
    let receiver: TestReceiver;
    let server: TestServer;
    let key: string;

    beforeEach(async () => {
      dns = await startDnsServer({
        'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
        'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
      });
      receiver = await startReceiver();
      server = await startTestServer({ dnsServers: [dns.address], allowPrivateTargets: true, watchesPerKey: 3, dailyLimit: 1 });
      key = await server.key({ owner: 'acct-1' });
    });

    afterEach(async () => {
      await server.close();
      await receiver.close();
      await dns.close();
    });

    const post = (path: string, body: unknown, secret = key) =>
      server.get(path, secret, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const hook = () => `http://hooks.test:${receiver.port}/in`;

    it('creates a watch with its secret shown once, lists, reads, checks and removes it', async () => {
      const created = await post('/api/watches', {
        type: 'dns',
        domain: 'example.test',
        webhook_url: hook(),
        interval_seconds: 120,
      });
      expect(created.status).to.equal(201);
      const { data } = (await created.json()) as { data: Record<string, unknown> };
      expect(data).to.include({
        type: 'dns',
        domain: 'example.test',
        webhook_url: hook(),
        interval_seconds: 120,
        last_error: null,
      });
      expect(data.secret).to.match(/^whsec_/);
      const id = String(data.id);

      const listed = (await (await server.get('/api/watches', key)).json()) as { data: Record<string, unknown>[] };
      expect(listed.data.map((watch) => watch.id)).to.deep.equal([id]);
      expect(JSON.stringify(listed)).to.not.include(String(data.secret));
      const one = (await (await server.get(`/api/watches/${id}`, key)).json()) as { data: Record<string, unknown> };
      expect(one.data).to.not.have.property('secret');

      // The first check runs at once and sets a baseline: nothing is sent.
      let watch = one.data;
      while (watch.last_checked_at === null) {
        await pause();
        watch = ((await (await server.get(`/api/watches/${id}`, key)).json()) as { data: Record<string, unknown> }).data;
      }
      expect(receiver.received).to.have.length(0);
      dns.zone['example.test']!.A = [{ address: '192.0.2.2', ttl: 60 }];
      const again = await post(`/api/watches/${id}/check`, {});
      expect(again.status).to.equal(202);
      const [hookSent] = await receiver.waitFor(1);
      expect((JSON.parse(hookSent!.body) as WatchEvent).type).to.equal('dns.changed');
      let deliveries: Record<string, unknown>[] = [];
      while (deliveries[0]?.status !== 'delivered') {
        await pause();
        deliveries = (
          (await (await server.get(`/api/watches/${id}/deliveries`, key)).json()) as { data: Record<string, unknown>[] }
        ).data;
      }
      expect(deliveries).to.have.length(1);
      expect(deliveries[0]).to.include({
        id: hookSent!.headers['webhook-id'],
        event: 'dns.changed',
        attempts: 1,
        response_status: 204,
      });

      const removed = await server.get(`/api/watches/${id}`, key, { method: 'DELETE' });
      expect(removed.status).to.equal(204);
      expect((await server.get(`/api/watches/${id}`, key)).status).to.equal(404);
    });

    it('gives a watch a new signing secret, shown once, and answers 404 for a watch of another owner', async () => {
      const created = (await (
        await post('/api/watches', { type: 'dns', domain: 'example.test', webhook_url: hook() })
      ).json()) as {
        data: Record<string, unknown>;
      };
      const { secret: first, ...watch } = created.data;
      const rotated = await post(`/api/watches/${String(watch.id)}/secret`, {});
      expect(rotated.status).to.equal(200);
      const { data } = (await rotated.json()) as { data: Record<string, unknown> };
      expect(data.secret)
        .to.match(/^whsec_/)
        .and.not.equal(first);
      expect(data).to.include({ id: watch.id, type: 'dns', domain: 'example.test', webhook_url: hook() });
      expect(JSON.stringify(await (await server.get(`/api/watches/${String(watch.id)}`, key)).json())).to.not.include(
        String(data.secret),
      );
      const other = await server.key({ owner: 'acct-2' });
      expect((await post(`/api/watches/${String(watch.id)}/secret`, {}, other)).status).to.equal(404);
    });

    it('answers a bad body with 400 invalid_request naming each field', async () => {
      const response = await post('/api/watches', {
        type: 'ftp',
        domain: 'not a domain',
        webhook_url: 'ftp://x',
        interval_seconds: 5,
      });
      expect(response.status).to.equal(400);
      const body = (await response.json()) as { code: string; errors: Record<string, string[]> };
      expect(body.code).to.equal('invalid_request');
      expect(body.errors).to.have.keys('type', 'domain', 'webhook_url', 'interval_seconds');
      const missing = (await (await post('/api/watches', {})).json()) as { errors: Record<string, string[]> };
      expect(missing.errors).to.have.keys('type', 'domain', 'webhook_url');
      const notJson = await server.get('/api/watches', key, { method: 'POST', body: '{' });
      expect(notJson.status).to.equal(400);
      for (const url of ['http://user:pw@hooks.test/', 'http://hooks.test:22/', 'http://10.0.0.1/', 'http://[::1]:8080/']) {
        const refused = await post('/api/watches', { type: 'ssl', domain: 'example.test', webhook_url: url });
        expect(refused.status, url).to.equal(url.includes('::1') || url.includes('10.0') ? 201 : 400);
      }
    });

    it("hides another owner's watches (404), holds a key to DOSSIER_WATCHES_PER_KEY, and counts nothing against the quota", async () => {
      const other = await server.key({ owner: 'acct-2' });
      const ids: string[] = [];
      for (const type of ['dns', 'whois', 'ssl']) {
        const response = await post('/api/watches', { type, domain: 'example.test', webhook_url: hook() });
        expect(response.status).to.equal(201);
        ids.push(String(((await response.json()) as { data: { id: string } }).data.id));
      }
      const fourth = await post('/api/watches', { type: 'dns', domain: 'example.test', webhook_url: hook() });
      expect(fourth.status).to.equal(400);
      expect(((await fourth.json()) as { code: string }).code).to.equal('invalid_request');
      for (const path of [`/api/watches/${ids[0]}`, `/api/watches/${ids[0]}/deliveries`]) {
        expect((await server.get(path, other)).status).to.equal(404);
      }
      expect((await server.get(`/api/watches/${ids[0]}`, other, { method: 'DELETE' })).status).to.equal(404);
      expect((await post(`/api/watches/${ids[0]}/check`, {}, other)).status).to.equal(404);
      expect(((await (await server.get('/api/watches', other)).json()) as { data: unknown[] }).data).to.deep.equal([]);
      // The daily limit is 1: a lookup still goes through after all these requests.
      const usage = (await (await server.get('/api/usage', key)).json()) as { data: { used_today: number } };
      expect(usage.data.used_today).to.equal(0);
      expect((await server.get('/api/dns?domain=example.test', key)).status).to.equal(200);
    });

    it("pages the owner's watches newest first with limit and cursor, with the exact total; a bad one is 400", async () => {
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        const created = await post('/api/watches', { type: 'dns', domain: `d${n}.example.test`, webhook_url: hook() });
        ids.unshift(String(((await created.json()) as { data: { id: string } }).data.id));
      }
      type Listed = { data: { id: string }[]; meta: { total: number; next_cursor: string | null } };
      const first = (await (await server.get('/api/watches?limit=2', key)).json()) as Listed;
      expect(first.data.map(({ id }) => id)).to.deep.equal(ids.slice(0, 2));
      expect(first.meta.total).to.equal(3);
      expect(first.meta.next_cursor).to.be.a('string');
      const next = `/api/watches?limit=2&cursor=${encodeURIComponent(first.meta.next_cursor!)}`;
      const second = (await (await server.get(next, key)).json()) as Listed;
      expect(second.data.map(({ id }) => id)).to.deep.equal(ids.slice(2));
      expect(second.meta).to.deep.equal({ total: 3, next_cursor: null });
      const whole = (await (await server.get('/api/watches', key)).json()) as Listed;
      expect(whole.data.map(({ id }) => id)).to.deep.equal(ids);
      for (const query of ['limit=0', 'limit=501', 'limit=x', 'cursor=bm90LWEtY3Vyc29y', 'cursor=']) {
        const answer = await server.get(`/api/watches?${query}`, key);
        expect(answer.status, query).to.equal(400);
        expect(((await answer.json()) as { code: string }).code, query).to.equal('invalid_request');
      }
    });

    it('is in the OpenAPI document that /docs renders, with its body schema and every answer', async () => {
      const document = (await (await server.get('/openapi.json')).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
      };
      const methods = (path: string) => Object.keys(document.paths[path] ?? {}).sort();
      expect(methods('/api/watches')).to.deep.equal(['get', 'post']);
      expect(methods('/api/watches/{id}')).to.deep.equal(['delete', 'get']);
      expect(methods('/api/watches/{id}/check')).to.deep.equal(['post']);
      expect(methods('/api/watches/{id}/deliveries')).to.deep.equal(['get']);
      expect(methods('/api/watches/{id}/secret')).to.deep.equal(['post']);
      const check = document.paths['/api/watches/{id}/check']!.post! as { responses: Record<string, { headers?: object }> };
      expect(Object.keys(check.responses)).to.include.members(['202', '401', '403', '404', '429', '503']);
      expect(check.responses['202']!.headers).to.include.keys('X-RateLimit-Remaining', 'RateLimit');
      expect(check.responses['429']!.headers).to.include.keys('Retry-After', 'X-RateLimit-Reset');
      const create = document.paths['/api/watches']!.post!;
      expect(Object.keys(create.responses)).to.include.members(['201', '400', '401', '403', '503']);
      expect(JSON.stringify(create.requestBody)).to.include('interval_seconds');
      expect(Object.keys(document.paths['/api/watches/{id}']!.delete!.responses)).to.include.members(['204', '404']);
    });

    it('needs a key with the lookup scope', async () => {
      expect((await server.get('/api/watches')).status).to.equal(401);
      const documentsOnly = await server.key({ scopes: ['documents'] });
      expect((await server.get('/api/watches', documentsOnly)).status).to.equal(403);
    });
  });
});
