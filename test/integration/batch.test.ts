import { expect } from 'chai';
import { backendCases, CONTRACT_STORE_TIMEOUT_MS } from '../contracts/backends.js';
import { BATCH_CONCURRENCY } from '../../lib/quota/batch.js';
import { startDnsServer, type DnsZone, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { startWhoisServer, verisignWhois, type TestWhoisServer, type WhoisReply } from '../support/whois-server.js';
import { until } from '../support/until.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const MIDNIGHT = Date.UTC(2026, 10, 23) / 1000;

/** `count` domains of the test zone, each with one public A record. */
function zoneOf(names: string[]): DnsZone {
  return Object.fromEntries(names.map((name, index) => [name, { A: [{ address: `93.184.216.${index % 250}`, ttl: 600 }] }]));
}

const NAMES = Array.from({ length: 40 }, (_, index) => `host${index}.example.test`);

interface Item {
  index?: number;
  type: string;
  query: string;
  status: 'success' | 'error';
  data?: Record<string, unknown>;
  cached?: boolean;
  code?: string;
  message?: string;
}

interface BatchBody {
  status: string;
  data: Item[];
  cached: boolean;
  code?: string;
  message?: string;
}

function post(
  server: TestServer,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return server.get('/api/batch', key, {
    method: 'POST',
    signal,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const dns = (domain: string, fresh?: boolean): Record<string, unknown> => ({
  type: 'dns',
  domain,
  ...(fresh === undefined ? {} : { fresh }),
});
const remaining = (response: Response): number => Number(response.headers.get('X-RateLimit-Remaining'));

/** Reads an NDJSON body line by line as the lines arrive. */
async function* ndjsonLines(response: Response): AsyncGenerator<Item> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line !== '') yield JSON.parse(line) as Item;
    }
  }
  expect(buffered, 'a last line without its newline').to.equal('');
}

eachAdapter(() => {
  describe('POST /api/batch', function () {
    let dnsServer: TestDnsServer;
    let whois: TestWhoisServer;
    let whoisReply: (query: string) => WhoisReply;
    let server: TestServer;

    before(async () => {
      dnsServer = await startDnsServer({
        ...zoneOf(NAMES),
        'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] },
        // A name that resolves to a private address: the TLS lookup refuses to connect to it.
        'inside.example.test': { A: [{ address: '10.1.2.3', ttl: 600 }] },
        '34.216.184.93.in-addr.arpa': { PTR: ['example.test'] },
      });
      whois = await startWhoisServer((query) => whoisReply(query));
    });
    after(async () => {
      await dnsServer.close();
      await whois.close();
    });

    beforeEach(async () => {
      whoisReply = (query) => verisignWhois({ domain: query });
      server = await startTestServer({
        dnsServers: [dnsServer.address],
        whoisServer: whois.address,
        lookupTimeoutMs: 2000,
        clock: { now: () => NOW },
      });
    });
    afterEach(() => server.close());

    describe('answers', () => {
      it('answers every item in the order given, each with its own success or error, and counts the countable ones', async () => {
        const key = await server.key({ dailyLimit: 10 });
        whoisReply = (query) =>
          query === 'busy.com'
            ? 'Your connection limit exceeded. Please slow down and try again later.\r\n'
            : verisignWhois({ domain: query });
        const response = await post(server, key, {
          lookups: [
            dns('example.test'),
            { type: 'dns', domain: 'not_a_domain' },
            { type: 'ip', ip: '93.184.216.34' },
            { type: 'ssl', domain: 'inside.example.test' },
            { type: 'ip', ip: '999.1.1.1' },
            { type: 'whois', domain: 'example.com' },
            dns('nowhere.example.test'),
            { type: 'whois', domain: 'busy.com' },
          ],
        });
        expect(response.status).to.equal(200);
        expect(response.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
        const body = (await response.json()) as BatchBody;
        expect(body.status).to.equal('success');
        expect(body.cached).to.equal(false);
        expect(body.data.map((item) => [item.type, item.query, item.status, item.code ?? null])).to.deep.equal([
          ['dns', 'example.test', 'success', null],
          ['dns', 'not_a_domain', 'error', 'invalid_domain'],
          ['ip', '93.184.216.34', 'success', null],
          ['ssl', 'inside.example.test', 'error', 'target_not_allowed'],
          ['ip', '999.1.1.1', 'error', 'invalid_ip'],
          ['whois', 'example.com', 'success', null],
          ['dns', 'nowhere.example.test', 'success', null],
          ['whois', 'busy.com', 'error', 'upstream_error'],
        ]);
        const [first, invalid, ip, , , registry, nowhere] = body.data as [Item, Item, Item, Item, Item, Item, Item];
        expect(Object.keys(first)).to.deep.equal(['type', 'query', 'status', 'data', 'cached']);
        expect(first.data).to.include({ domain: 'example.test', exists: true });
        expect(first.cached).to.equal(false);
        expect(Object.keys(invalid)).to.deep.equal(['type', 'query', 'status', 'code', 'message']);
        expect(invalid.message).to.be.a('string').and.not.equal('');
        expect(ip.data).to.include({ ip: '93.184.216.34', hostname: 'example.test' });
        expect(registry.data).to.include({ domain: 'example.com', registered: true, source: 'whois' });
        expect(nowhere.data).to.include({ exists: false });
        // 5 counted, the upstream error too: the two invalid items and the refused target (given back) do not count.
        expect(remaining(response)).to.equal(5);
        expect(response.headers.get('X-RateLimit-Limit')).to.equal('10');
        expect(response.headers.get('X-RateLimit-Reset')).to.equal(String(MIDNIGHT));
        expect(response.headers.get('RateLimit')).to.equal(`"daily";r=5;t=${MIDNIGHT - NOW / 1000}`);
        expect(response.headers.get('RateLimit-Policy')).to.equal('"daily";q=10;w=86400');
        const usage = (await (await server.get('/api/usage', key)).json()) as {
          data: { used_today: number; history: Record<string, number>[] };
        };
        expect(usage.data.used_today).to.equal(5);
        expect(usage.data.history.at(-1)).to.include({ dns: 2, ip: 1, whois: 2, ssl: 0, total: 5 });
      });

      it('ignores fields it does not know, in the body and in the items', async () => {
        const key = await server.key({ dailyLimit: 10 });
        const response = await post(server, key, {
          lookups: [{ ...dns('example.test'), ip: '1.1.1.1', note: 'x' }],
          client: 'y',
        });
        expect(response.status).to.equal(200);
        const [item] = ((await response.json()) as BatchBody).data;
        expect(item).to.deep.include({ type: 'dns', query: 'example.test', status: 'success' });
        expect(remaining(response)).to.equal(9);
      });

      it('answers a cached item as cached', async () => {
        const key = await server.key();
        await post(server, key, { lookups: [dns('example.test')] });
        const response = await post(server, key, { lookups: [dns('example.test'), dns('example.test', false)] });
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.cached)).to.deep.equal([true, true]);
        expect(remaining(response)).to.equal(1000 - 3);
      });

      it('answers a fresh item past the cache, and counts it', async () => {
        const key = await server.key();
        await post(server, key, { lookups: [dns('example.test')] });
        const before = dnsServer.questions;
        const response = await post(server, key, { lookups: [dns('example.test'), dns('example.test', true)] });
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.cached)).to.deep.equal([true, false]);
        expect(dnsServer.questions, 'the fresh item asked the DNS server').to.be.greaterThan(before);
        expect(remaining(response)).to.equal(1000 - 3);
      });
    });

    describe('quota', () => {
      it('serves the first n countable items when n remain, and refuses the rest with quota_exceeded', async () => {
        const key = await server.key({ dailyLimit: 3 });
        const response = await post(server, key, {
          lookups: [
            dns(NAMES[0]!),
            dns('-bad-'),
            dns(NAMES[1]!),
            dns(NAMES[2]!),
            dns(NAMES[3]!),
            { type: 'ip', ip: 'nope' },
            dns(NAMES[4]!),
          ],
        });
        expect(response.status).to.equal(200);
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.code ?? item.status)).to.deep.equal([
          'success',
          'invalid_domain',
          'success',
          'success',
          'quota_exceeded',
          'invalid_ip',
          'quota_exceeded',
        ]);
        expect(remaining(response)).to.equal(0);
        expect(response.headers.get('Retry-After')).to.equal(null);
      });

      it('refuses the whole batch with 429 and Retry-After only when nothing remained when it arrived', async () => {
        const key = await server.key({ dailyLimit: 2 });
        expect((await post(server, key, { lookups: [dns(NAMES[0]!), dns(NAMES[1]!)] })).status).to.equal(200);
        const response = await post(server, key, { lookups: [dns(NAMES[2]!), dns(NAMES[3]!)] });
        expect(response.status).to.equal(429);
        expect(await response.json()).to.deep.include({ status: 'error', code: 'quota_exceeded' });
        expect(response.headers.get('Retry-After')).to.equal(String(MIDNIGHT - NOW / 1000));
        expect(remaining(response)).to.equal(0);
        expect(response.headers.get('X-RateLimit-Limit')).to.equal('2');
      });

      it('answers a batch of only invalid items even when nothing remains, since none of them counts', async () => {
        const key = await server.key({ dailyLimit: 1 });
        await post(server, key, { lookups: [dns(NAMES[0]!)] });
        const response = await post(server, key, { lookups: [dns('not_a_domain'), { type: 'ip', ip: 'nope' }] });
        expect(response.status).to.equal(200);
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.code)).to.deep.equal(['invalid_domain', 'invalid_ip']);
        expect(remaining(response)).to.equal(0);
      });

      it('gives the unit of an item refused after resolution to the next item of the batch', async () => {
        const key = await server.key({ dailyLimit: 2 });
        const response = await post(server, key, {
          lookups: [{ type: 'ssl', domain: 'inside.example.test' }, dns(NAMES[0]!), dns(NAMES[1]!), dns(NAMES[2]!)],
        });
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.code ?? item.status)).to.deep.equal([
          'target_not_allowed',
          'success',
          'success',
          'quota_exceeded',
        ]);
        expect(remaining(response)).to.equal(0);
      });

      it('counts every one of identical items, though they share one upstream query', async () => {
        const key = await server.key({ dailyLimit: 10 });
        const response = await post(server, key, {
          lookups: [dns(NAMES[5]!), dns(NAMES[5]!.toUpperCase()), dns(`${NAMES[5]!}.`)],
        });
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.status)).to.deep.equal(['success', 'success', 'success']);
        expect(items.map((item) => item.query)).to.deep.equal([NAMES[5], NAMES[5]!.toUpperCase(), `${NAMES[5]!}.`]);
        expect(remaining(response)).to.equal(7);
      });
    });

    describe('sharing and concurrency', () => {
      /** The DNS questions one lookup of a name not asked before costs. */
      async function questionsOfOneLookup(key: string, name: string): Promise<number> {
        const before = dnsServer.questions;
        await post(server, key, { lookups: [dns(name)] });
        return dnsServer.questions - before;
      }

      it('asks the upstream once for identical items, also when they skip the cache', async () => {
        const key = await server.key();
        const one = await questionsOfOneLookup(key, NAMES[10]!);
        expect(one).to.be.greaterThan(0);
        let before = dnsServer.questions;
        const items = [dns(NAMES[11]!), dns(NAMES[11]!.toUpperCase()), dns(NAMES[11]!), dns(NAMES[11]!)];
        expect((await post(server, key, { lookups: items })).status).to.equal(200);
        expect(dnsServer.questions - before).to.equal(one);
        before = dnsServer.questions;
        const fresh = Array.from({ length: 5 }, () => dns(NAMES[12]!, true));
        const response = await post(server, key, { lookups: fresh });
        expect(((await response.json()) as BatchBody).data.map((item) => item.status)).to.deep.equal(Array(5).fill('success'));
        expect(dnsServer.questions - before).to.equal(one);
      });

      it(`runs at most ${BATCH_CONCURRENCY} upstream queries at once, and runs that many in parallel`, async () => {
        const key = await server.key();
        const releases: (() => void)[] = [];
        let held = 0;
        let mostHeld = 0;
        whoisReply = (query) => {
          held += 1;
          mostHeld = Math.max(mostHeld, held);
          return {
            after: new Promise<WhoisReply>((resolve) =>
              releases.push(() => {
                held -= 1;
                resolve(verisignWhois({ domain: query }));
              }),
            ),
          };
        };
        const domains = Array.from({ length: 20 }, (_, index) => `slow${index}.com`);
        const answer = post(server, key, { lookups: domains.map((domain) => ({ type: 'whois', domain })) });
        let released = 0;
        while (released < domains.length) {
          const expected = Math.min(BATCH_CONCURRENCY, domains.length - released);
          await until(() => held === expected, `${expected} queries held`);
          // Give a batch that broke the bound the time to show it.
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect(held).to.equal(expected);
          for (const release of releases.splice(0)) release();
          released += expected;
        }
        const response = await answer;
        const items = ((await response.json()) as BatchBody).data;
        expect(items.map((item) => item.query)).to.deep.equal(domains);
        expect(items.every((item) => item.status === 'success')).to.equal(true);
        expect(mostHeld).to.equal(BATCH_CONCURRENCY);
      });
    });

    describe('streaming', () => {
      it('streams one item a line, with its index, as each is ready: a fast item before a slow one', async () => {
        const key = await server.key({ dailyLimit: 10 });
        let release = (): void => {};
        whoisReply = (query) => ({
          after: new Promise((resolve) => (release = () => resolve(verisignWhois({ domain: query })))),
        });
        const response = await post(
          server,
          key,
          { lookups: [{ type: 'whois', domain: 'slow.com' }, dns('example.test'), dns('not_a_domain')] },
          { Accept: 'application/x-ndjson' },
        );
        expect(response.status).to.equal(200);
        expect(response.headers.get('Content-Type')).to.match(/^application\/x-ndjson/);
        expect(remaining(response)).to.equal(8);
        const lines = ndjsonLines(response);
        const seen: Item[] = [];
        for (let count = 0; count < 2; count += 1) seen.push((await lines.next()).value as Item);
        // The whois server still holds its query: these two cannot have waited for it.
        expect(seen.map((item) => item.index).sort()).to.deep.equal([1, 2]);
        release();
        const last = (await lines.next()).value as Item;
        expect(last).to.deep.include({ index: 0, type: 'whois', query: 'slow.com', status: 'success', cached: false });
        expect((await lines.next()).done).to.equal(true);
        const byIndex = Object.fromEntries(seen.map((item) => [item.index, item]));
        expect(byIndex[1]).to.deep.include({ type: 'dns', query: 'example.test', status: 'success', cached: false });
        expect(byIndex[2]).to.deep.include({ type: 'dns', query: 'not_a_domain', status: 'error', code: 'invalid_domain' });
      });

      it('keeps serving when a client goes away in the middle of a stream', async () => {
        const key = await server.key({ dailyLimit: 10 });
        let release = (): void => {};
        whoisReply = (query) => ({
          after: new Promise((resolve) => (release = () => resolve(verisignWhois({ domain: query })))),
        });
        const controller = new AbortController();
        const response = await post(
          server,
          key,
          { lookups: [{ type: 'whois', domain: 'gone.com' }, dns('example.test')] },
          { Accept: 'application/x-ndjson' },
          controller.signal,
        );
        const lines = ndjsonLines(response);
        expect(((await lines.next()).value as Item).index).to.equal(1);
        controller.abort();
        await lines.next().catch(() => undefined);
        release();
        await until(() => whois.open === 0, 'the whois connection to close');
        const after = await post(server, key, { lookups: [dns('example.test')] }, { Accept: 'application/x-ndjson' });
        const items: Item[] = [];
        for await (const line of ndjsonLines(after)) items.push(line);
        expect(items).to.have.length(1);
        expect(remaining(after)).to.equal(7);
      });

      it('answers a refused batch with the JSON error, not a stream', async () => {
        const response = await post(server, undefined, { lookups: [dns('example.test')] }, { Accept: 'application/x-ndjson' });
        expect(response.status).to.equal(401);
        expect(response.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
        expect(await response.json()).to.deep.include({ status: 'error', code: 'missing_key' });
      });
    });

    describe('refused requests', () => {
      const cases: [string, unknown, RegExp][] = [
        ['101 items', { lookups: Array.from({ length: 101 }, () => dns('example.test')) }, /lookups\[100\]/],
        ['no items', { lookups: [] }, /empty/],
        [
          'an unknown type',
          { lookups: [dns('example.test'), { type: 'mx', domain: 'example.test' }] },
          /lookups\[1\]\.type "mx"/,
        ],
        ['a missing type', { lookups: [{ domain: 'example.test' }] }, /lookups\[0\] has no "type"/],
        ['a missing domain', { lookups: [dns('example.test'), dns('example.test'), { type: 'ssl' }] }, /lookups\[2\].*"domain"/],
        ['an ip item with a domain', { lookups: [{ type: 'ip', domain: 'example.test' }] }, /lookups\[0\]/],
        ['a domain that is a number', { lookups: [{ type: 'dns', domain: 42 }] }, /lookups\[0\]\.domain must be a string/],
        [
          'fresh that is not a boolean',
          { lookups: [{ type: 'dns', domain: 'example.test', fresh: 'yes' }] },
          /lookups\[0\]\.fresh/,
        ],
        ['an item that is not an object', { lookups: ['example.test'] }, /lookups\[0\] must be an object/],
        ['lookups that is not an array', { lookups: { type: 'dns', domain: 'example.test' } }, /"lookups"/],
        ['a body that is an array', [dns('example.test')], /JSON object/],
        ['a body that is not JSON', '{"lookups": [', /not valid JSON/],
        ['an empty body', '', /not valid JSON/],
      ];
      for (const [what, body, message] of cases) {
        it(`answers 400 invalid_request for ${what}, naming what is wrong, and does not count it`, async () => {
          const key = await server.key({ dailyLimit: 10 });
          const response = await post(server, key, body);
          expect(response.status).to.equal(400);
          const answer = (await response.json()) as BatchBody;
          expect(answer).to.include({ status: 'error', code: 'invalid_request' });
          expect(answer.message).to.match(message);
          expect(remaining(response)).to.equal(10);
        });
      }

      it('checks the key and its scope before the body', async () => {
        expect((await post(server, undefined, 'not json')).status).to.equal(401);
        expect((await post(server, 'dsr_nonsense', 'not json')).status).to.equal(401);
        const documentsOnly = await server.key({ scopes: ['documents'], dailyLimit: 10 });
        const response = await post(server, documentsOnly, { lookups: [dns('example.test')] });
        expect(response.status).to.equal(403);
        expect(await response.json()).to.deep.include({ code: 'insufficient_scope' });
        expect(remaining(response)).to.equal(10);
      });

      it('answers 413 for a body larger than 64 KiB', async () => {
        const key = await server.key();
        const response = await post(server, key, { lookups: [dns('a'.repeat(70 * 1024))] });
        expect(response.status).to.equal(413);
        expect(await response.json()).to.deep.include({ status: 'error' });
      });

      it('answers 405 to other methods', async () => {
        const response = await server.get('/api/batch', await server.key());
        expect(response.status).to.equal(405);
      });
    });

    describe('several processes sharing a store', () => {
      const { cases, skipped } = backendCases();
      let second: TestServer | undefined;
      before(() => {
        for (const name of skipped) console.log(`      (skipped backend: ${name})`);
      });
      afterEach(async () => {
        await second?.close();
        second = undefined;
        for (const backend of cases) backend.cleanup();
      });

      for (const backend of cases.filter((candidate) => candidate.shared)) {
        it(`serves exactly the limit across parallel batches on two instances sharing ${backend.name}, each batch in its order`, async () => {
          await server.close();
          const options = {
            store: backend.url(),
            // Not the default 2 s: 6 batches at once queue on one quota row while other files load the server.
            storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS,
            dnsServers: [dnsServer.address],
            lookupTimeoutMs: 2000,
            clock: { now: () => NOW },
          };
          server = await startTestServer(options);
          second = await startTestServer(options);
          const limit = 25;
          const key = await server.key({ dailyLimit: limit });
          // 6 batches of 11 countable items (and one invalid) against 25: some are cut short, and not one more is served.
          const batches = Array.from({ length: 6 }, (_, batch) =>
            post(batch % 2 === 0 ? server : second!, key, {
              lookups: NAMES.slice(0, 12).map((name, index) => (index === 3 ? dns('not_a_domain') : dns(name))),
            }),
          );
          const answers = await Promise.all(batches);
          let served = 0;
          for (const response of answers) {
            expect(response.status).to.be.oneOf([200, 429]);
            if (response.status === 429) continue;
            const statuses = ((await response.json()) as BatchBody).data.map((item) => item.code ?? item.status);
            expect(statuses[3]).to.equal('invalid_domain');
            const countable = statuses.filter((_, index) => index !== 3);
            const firstRefused = countable.indexOf('quota_exceeded');
            const servedHere = firstRefused === -1 ? countable.length : firstRefused;
            expect(countable.slice(0, servedHere).every((status) => status === 'success')).to.equal(true);
            expect(countable.slice(servedHere).every((status) => status === 'quota_exceeded')).to.equal(true);
            served += servedHere;
          }
          expect(served).to.equal(limit);
          const usage = (await (await second.get('/api/usage', key)).json()) as { data: { used_today: number } };
          expect(usage.data.used_today).to.equal(limit);
        });
      }
    });
  });
});
