import { expect } from 'chai';
import { parseHostPort } from '../../lib/lookup/net/host-port.js';
import { systemDnsResolverFactory } from '../../lib/lookup/net/system-dns-resolver.js';
import type { DnsResolver } from '../../lib/ports/dns-resolver.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { until } from '../support/until.js';
import { watchEngineCases } from '../support/watch-engines.js';
import { countWork, type WorkCounts } from '../support/work-counts.js';

type Json = Record<string, unknown>;

eachAdapter(() => {
  // POST /api/watches/{id}/check over HTTP (docs/contract.md §11, new): one lookup of the watch's type against
  // the key's quota, at most one pending or running per watch, on every engine.
  for (const engine of watchEngineCases()) {
    describe(`on-demand checks of watches, counted (${engine.name})`, function () {
      this.timeout(30_000);
      let dns: TestDnsServer;
      let server: TestServer;
      let work: WorkCounts;
      /**
       * While set, the A question of every DNS lookup waits for it before it is asked. Holding the DNS
       * server's answers instead (`dns.hold`) held a check only as long as the system resolver waits for
       * one, about 5 s whatever the lookup's deadline: on a loaded machine the check ended while the
       * requests of the test were still coming, and the next of them started another.
       */
      let held: Promise<void> | undefined;

      beforeEach(async function () {
        const store = engine.options();
        if (store === undefined) this.skip();
        dns = await startDnsServer({ 'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] } });
        const lookupTimeoutMs = 25_000;
        const system = systemDnsResolverFactory([parseHostPort(dns.address, 53)!], lookupTimeoutMs);
        const createDnsResolver = (): DnsResolver => {
          const resolver = system();
          return Object.assign(Object.create(resolver) as DnsResolver, {
            resolve4: async (hostname: string, options: { ttl: true }) => {
              await held;
              return resolver.resolve4(hostname, options);
            },
          });
        };
        // The store's deadline is for a store that stops answering: at 2 s, a store that answers, slowly on a
        // loaded machine, made a few of a hundred requests at once a 503 (MySQL, load 14-15).
        const storeTimeoutMs = 20_000;
        server = await startTestServer({
          ...store,
          dnsServers: [dns.address],
          lookupTimeoutMs,
          storeTimeoutMs,
          createDnsResolver,
        });
        work = countWork(server.dossier);
        await server.dossier.startWorkers();
      });

      afterEach(async () => {
        held = undefined;
        await server?.close();
        await dns?.close();
        engine.cleanup();
      });

      /** A dns watch of the key's, once its first check (the baseline) is made. */
      async function watchOf(key: string): Promise<string> {
        const created = await server.get('/api/watches', key, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'dns', domain: 'example.test', webhook_url: 'https://hooks.example.test/in' }),
        });
        expect(created.status).to.equal(201);
        const { id } = ((await created.json()) as { data: { id: string } }).data;
        await until(
          async () =>
            ((await (await server.get(`/api/watches/${id}`, key)).json()) as { data: Json }).data.last_checked_at !== null,
          'the first check',
        );
        return id;
      }

      const check = (id: string, key: string) => server.get(`/api/watches/${id}/check`, key, { method: 'POST' });
      const usedToday = async (key: string): Promise<Json> =>
        ((await (await server.get('/api/usage', key)).json()) as { data: { history: Json[] } }).data.history.at(-1)!;

      it('counts one lookup of the watch type, with the quota headers; a spent quota is a 429 and nothing runs', async () => {
        const key = await server.key({ owner: 'acct', dailyLimit: 2 });
        const id = await watchOf(key);
        // Reported once it has ended (claim given back), which may come just after its result is stored.
        await until(() => work.checks === 1, 'the first check reported');

        const accepted = await check(id, key);
        expect(accepted.status).to.equal(202);
        expect(accepted.headers.get('X-RateLimit-Limit')).to.equal('2');
        expect(accepted.headers.get('X-RateLimit-Remaining')).to.equal('1');
        expect(accepted.headers.get('RateLimit')).to.match(/^"daily";r=1;t=\d+$/);
        await until(() => work.checks === 2, 'the check');
        expect((await server.get('/api/dns?domain=example.test', key)).status).to.equal(200);

        const refused = await check(id, key);
        expect(refused.status).to.equal(429);
        expect(await refused.json()).to.include({ status: 'error', code: 'quota_exceeded' });
        expect(Number(refused.headers.get('Retry-After'))).to.be.above(0);
        expect(refused.headers.get('X-RateLimit-Remaining')).to.equal('0');
        // Another key's check, asked after, runs: had the refused one run, it would have come first.
        const other = await server.key({ owner: 'acct', dailyLimit: 5 });
        expect((await check(id, other)).status).to.equal(202);
        await until(() => work.checks === 3, 'the next check');
        expect(await usedToday(key)).to.include({ dns: 2, whois: 0, ssl: 0, total: 2 });
        expect(await usedToday(other)).to.include({ dns: 1, total: 1 });
      });

      it('starts one check and counts one lookup for a hundred asked at once, while it is pending or running', async () => {
        const key = await server.key({ owner: 'acct', dailyLimit: 1000 });
        const id = await watchOf(key);
        const lookupsBefore = work.lookups.length;
        let release!: () => void;
        held = new Promise((resolve) => (release = resolve));
        try {
          const answers = await Promise.all(Array.from({ length: 100 }, () => check(id, key)));
          expect(answers.map((answer) => answer.status)).to.deep.equal(Array(100).fill(202));
          for (const answer of answers) expect(answer.headers.get('X-RateLimit-Remaining')).to.equal('999');
        } finally {
          release();
          held = undefined;
        }
        await until(() => work.checks === 2, 'the check');
        expect(work.lookups.slice(lookupsBefore)).to.deep.equal(['dns']);
        expect(await usedToday(key)).to.include({ dns: 1, total: 1 });
        // Once it has ended, the next one starts, and counts.
        await until(async () => (await check(id, key)).headers.get('X-RateLimit-Remaining') === '998', 'a check counted');
        await until(() => work.checks === 3, 'the next check');
        expect(work.lookups.slice(lookupsBefore)).to.deep.equal(['dns', 'dns']);
        expect(await usedToday(key)).to.include({ dns: 2, total: 2 });
      });

      it('answers 404 for a watch of another owner, counting nothing', async () => {
        const key = await server.key({ owner: 'acct', dailyLimit: 1 });
        const id = await watchOf(key);
        const stranger = await server.key({ owner: 'other', dailyLimit: 1 });
        const refused = await check(id, stranger);
        expect(refused.status).to.equal(404);
        expect(refused.headers.get('X-RateLimit-Remaining')).to.equal('1');
        expect(await usedToday(stranger)).to.include({ total: 0 });
      });
    });
  }
});
