import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { until } from '../support/until.js';
import { startReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'metrics-test-admin-token-0123456789abcdef';

/** One sample of a Prometheus text exposition. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with this name and these labels (among others), or undefined. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

eachAdapter(() => {
  describe('/metrics', () => {
    let dns: TestDnsServer;
    let server: TestServer;

    before(async () => {
      dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    });
    after(async () => {
      await dns.close();
    });
    afterEach(async () => {
      await server.close();
    });

    const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
      const response = await server.get('/metrics', TOKEN);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      return { text, samples: parse(text) };
    };

    it('is 404 when no admin token is configured', async () => {
      server = await startTestServer();
      const response = await server.get('/metrics', TOKEN);
      expect(response.status).to.equal(404);
      expect(await response.json()).to.include({ status: 'error', code: 'not_found' });
    });

    it('wants the admin token as a bearer', async () => {
      server = await startTestServer({ adminToken: TOKEN });
      const none = await server.get('/metrics');
      expect(none.status).to.equal(401);
      expect(await none.json()).to.include({ code: 'missing_key' });
      const wrong = await server.get('/metrics', `${TOKEN}x`);
      expect(wrong.status).to.equal(401);
      expect(await wrong.json()).to.include({ code: 'invalid_key' });
      const key = await server.key();
      expect((await server.get('/metrics', key)).status).to.equal(401);
    });

    it('counts real traffic by route pattern, lookups by kind, cache and outcome, quota rejections, upstream and generator time', async () => {
      server = await startTestServer({ adminToken: TOKEN, dnsServers: [dns.address] });
      const key = await server.key({ dailyLimit: 2 });
      expect((await server.get('/api/dns?domain=example.test', key)).status).to.equal(200);
      expect((await server.get('/api/dns?domain=example.test', key)).status).to.equal(200);
      expect((await server.get('/api/dns?domain=example.test', key)).status).to.equal(429);
      const created = await server.get('/api/v1/documents', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Doc', prompt: 'A note about metrics' }),
      });
      expect(created.status).to.equal(201);
      const { data } = (await created.json()) as { data: { id: number } };
      expect((await server.get(`/api/v1/documents/${data.id}`, key)).status).to.equal(200);
      expect((await server.get('/api/v1/documents/987654', key)).status).to.equal(404);
      expect((await server.get('/no/such/path/secret-ish')).status).to.equal(404);

      const { text, samples } = await scrape();
      expect(value(samples, 'dossier_http_requests_total', { method: 'GET', route: '/api/dns', status: '200' })).to.equal(2);
      expect(value(samples, 'dossier_http_requests_total', { method: 'GET', route: '/api/dns', status: '429' })).to.equal(1);
      expect(
        value(samples, 'dossier_http_requests_total', { method: 'POST', route: '/api/v1/documents', status: '201' }),
      ).to.equal(1);
      expect(
        value(samples, 'dossier_http_requests_total', { method: 'GET', route: '/api/v1/documents/:id', status: '200' }),
      ).to.equal(1);
      expect(
        value(samples, 'dossier_http_requests_total', { method: 'GET', route: '/api/v1/documents/:id', status: '404' }),
      ).to.equal(1);
      expect(value(samples, 'dossier_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
      expect(value(samples, 'dossier_http_request_duration_seconds_count', { route: '/api/dns' })).to.equal(3);
      expect(value(samples, 'dossier_lookups_total', { kind: 'dns', cached: 'false', outcome: 'success' })).to.equal(1);
      expect(value(samples, 'dossier_lookups_total', { kind: 'dns', cached: 'true', outcome: 'success' })).to.equal(1);
      expect(value(samples, 'dossier_quota_rejections_total')).to.equal(1);
      expect(value(samples, 'dossier_upstream_duration_seconds_count', { kind: 'dns' })).to.equal(1);
      expect(value(samples, 'dossier_generator_duration_seconds_count')).to.equal(1);
      expect(value(samples, 'dossier_store_errors_total')).to.equal(0);
      expect(value(samples, 'process_cpu_user_seconds_total')).to.be.a('number');
      expect(value(samples, 'nodejs_heap_size_used_bytes')).to.be.above(0);
      // Bounded labels: never a raw path, a domain or a key.
      for (const raw of ['/api/v1/documents/987654', `/api/v1/documents/${data.id}"`, 'example.test', 'secret-ish', key]) {
        expect(text).to.not.include(raw);
      }
      const routes = new Set(samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route));
      for (const route of routes) expect(route).to.match(/^(\/[\w/:.]*|unmatched)$/);
    });

    it('counts store errors', async () => {
      const probe = createServer().listen(0, '127.0.0.1');
      await once(probe, 'listening');
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      server = await startTestServer({ adminToken: TOKEN, store: `redis://127.0.0.1:${port}` });
      expect((await server.get('/api/dns?domain=example.test', `dsr_${'a'.repeat(43)}`)).status).to.equal(503);
      const { samples } = await scrape();
      expect(value(samples, 'dossier_store_errors_total')).to.be.at.least(1);
      expect(value(samples, 'dossier_http_requests_total', { route: '/api/dns', status: '503' })).to.equal(1);
    });

    it('counts watch checks by type and outcome, and webhook attempts by outcome', async () => {
      const receiver = await startReceiver();
      try {
        dns.zone['hooks.test'] = { A: [{ address: '127.0.0.1', ttl: 60 }] };
        server = await startTestServer({ adminToken: TOKEN, dnsServers: [dns.address], allowPrivateTargets: true, sslPort: 1 });
        const heard: string[] = [];
        server.dossier.watches.on('*', (event) => heard.push(event.type));
        const watches = server.dossier.watches;
        const dnsWatch = await watches.create({
          type: 'dns',
          domain: 'example.test',
          webhookUrl: `http://hooks.test:${receiver.port}/`,
        });
        const sslWatch = await watches.create({ type: 'ssl', domain: 'hooks.test' });
        const checked = async (id: string) => {
          while ((await watches.get(id)).lastCheckedAt === null) await new Promise((resolve) => setTimeout(resolve, 10));
        };
        await checked(dnsWatch.watch.id);
        await checked(sslWatch.watch.id);
        receiver.answer = { status: 500 };
        dns.zone['example.test']!.A = [];
        await watches.check(dnsWatch.watch.id);
        while ((await watches.deliveries(dnsWatch.watch.id))[0]?.responseStatus !== 500)
          await new Promise((resolve) => setTimeout(resolve, 10));
        // A check is counted once it has ended, its lease and claim given back: just after what it stored.
        const checks = async () => {
          const { samples } = await scrape();
          return [
            value(samples, 'dossier_watch_checks_total', { type: 'dns', outcome: 'success' }),
            value(samples, 'dossier_watch_checks_total', { type: 'ssl', outcome: 'failure' }),
          ];
        };
        await until(async () => (await checks()).join() === '2,1', 'the three checks counted');
        const { samples } = await scrape();
        expect(value(samples, 'dossier_webhook_deliveries_total', { outcome: 'retry' })).to.equal(1);
        expect(heard).to.deep.equal(['dns.changed']);
      } finally {
        dns.zone['example.test']!.A = [{ address: '93.184.216.34', ttl: 600 }];
        await receiver.close();
      }
    });
  });
});
