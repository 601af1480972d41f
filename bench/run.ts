import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../lib/dossier.js';
import { startDnsServer } from '../test/support/dns-server.js';
import { BENCH_ROUNDS, BENCH_SECONDS, CONNECTIONS, markdownReport, measure, QUICK, run, type BenchResult } from './harness.js';
import { benchDocumentsScale } from './documents-scale.js';
import { benchRecordsScale } from './records-scale.js';
import { benchKeysScale } from './keys-scale.js';
import { benchWatchUpgrade } from './watch-upgrade.js';
import {
  cliKey,
  FRAMEWORKS,
  startBare,
  startDossier,
  startExample,
  startFloor,
  startRedis,
  type ServerProcess,
} from './processes.js';
import { dueBench, watchBenchStores, watchesBench } from './watches.js';

// `npm run bench`: the cost of a request, as server CPU per request: `dossier serve` as
// `npm start` runs it (default settings, a log line a request to a file), in a process of its own, beside
// a bare Koa process answering the same body, both loaded by wrk from another process. The cached
// GET /api/dns on each real store, with keys made by `dossier keys create`; on SQLite, reading and creating
// a document, and the same lookup through the example app of each framework (Koa, Express, Fastify,
// Hono), each beside its bare self; the same lookup as an MCP tool call; the server's memory as requests
// grow; watches; documents at scale.
// `BENCH_QUICK=1`: the issue-30 paths alone (one key), for a check while working; `BENCH_EXTRAS=0`: all but
// the watches and the documents at scale.

/** `BENCH_EXTRAS=0`: without the watches and the documents at scale (as `BENCH_QUICK=1` is). */
const EXTRAS = !QUICK && process.env.BENCH_EXTRAS !== '0';
const DISTINCT_KEYS = Number(process.env.BENCH_KEYS ?? (QUICK ? 0 : 10_000));
const DOMAIN = 'example.com';
const LOOKUP = `/api/dns?domain=${DOMAIN}`;

const dns = await startDnsServer({
  [DOMAIN]: {
    A: [{ address: '93.184.216.34', ttl: 3600 }],
    AAAA: [{ address: '2606:2800:220:1:248:1893:25c8:1946', ttl: 3600 }],
    MX: [{ exchange: 'mail.example.com', priority: 10 }],
    NS: ['a.iana-servers.net', 'b.iana-servers.net'],
    TXT: [['v=spf1 -all']],
    SOA: {
      nsname: 'ns.icann.org',
      hostmaster: 'noc.dns.icann.org',
      serial: 2026112201,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minttl: 3600,
    },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-'));
const notes: string[] = [];
const results: BenchResult[] = [];
/** The stores to measure (`BENCH_STORES`, a comma-separated list of sqlite, redis, postgres, mysql): all by default. */
const chosen = (process.env.BENCH_STORES ?? 'sqlite,redis,postgres,mysql')
  .toLowerCase()
  .split(',')
  .map((name) => name.trim());
const stores: { label: string; url: string; target?: number }[] = [];
if (chosen.includes('sqlite')) stores.push({ label: 'SQLite', url: `sqlite://${join(dir, 'bench.sqlite')}`, target: 0.65 });
const redis = chosen.includes('redis') ? await startRedis() : undefined;
if (redis) stores.push({ label: 'Redis', url: redis.url, target: 0.55 });
else if (chosen.includes('redis')) notes.push('Redis skipped: no redis-server on PATH.');
const postgres = process.env.BENCH_POSTGRES ?? process.env.DOSSIER_TEST_POSTGRES;
if (postgres && chosen.includes('postgres')) stores.push({ label: 'PostgreSQL', url: postgres, target: 0.5 });
else if (chosen.includes('postgres'))
  notes.push('PostgreSQL skipped: set BENCH_POSTGRES (or DOSSIER_TEST_POSTGRES) to a database URL.');
// MySQL/MariaDB has no target of its own: measured beside the others.
const mysql = process.env.BENCH_MYSQL ?? process.env.DOSSIER_TEST_MYSQL;
if (mysql && chosen.includes('mysql')) stores.push({ label: 'MySQL', url: mysql });
else if (chosen.includes('mysql')) notes.push('MySQL skipped: set BENCH_MYSQL (or DOSSIER_TEST_MYSQL) to a database URL.');

const envOf = (store: string): Record<string, string> => ({
  DOSSIER_STORE: store,
  DOSSIER_CACHE: 'memory://',
  DOSSIER_DNS_SERVERS: dns.address,
});
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

/** `count` keys with a limit no run reaches, made through the library on the store (the CLI's code path). */
async function manyKeys(store: string, count: number): Promise<string[]> {
  const dossier = createDossier({ store, storeTimeoutMs: 30_000 });
  try {
    const secrets: string[] = [];
    for (let start = 0; start < count; start += 200) {
      const batch = Array.from({ length: Math.min(200, count - start) }, (_, i) =>
        dossier.keys.create({ name: `bench-${start + i}`, dailyLimit: 1_000_000_000 }),
      );
      secrets.push(...(await Promise.all(batch)).map((created) => created.secret));
    }
    return secrets;
  } finally {
    await dossier.close();
  }
}

/** The cached answer body, for the baseline to answer too. */
async function cachedBody(server: ServerProcess, secret: string): Promise<unknown> {
  await fetch(server.url + LOOKUP, { headers: bearer(secret) });
  const answer = await fetch(server.url + LOOKUP, { headers: bearer(secret) });
  if (answer.status !== 200) throw new Error(`GET ${LOOKUP} answered ${answer.status}: ${await answer.text()}`);
  return answer.json();
}

/**
 * The floor of a route: bare Koa making the same library calls alone (see bench/floor-koa.ts), beside
 * bare Koa, with the same requests as the route's scenario.
 */
async function measureFloor(
  floor: 'lookup' | 'read' | 'create',
  scenario: string,
  env: Record<string, string>,
  request: Parameters<typeof measure>[3],
): Promise<void> {
  const server = await startFloor(floor, env);
  try {
    const { pathname, search } = new URL(request.url);
    results.push(
      await measure(`floor of ${scenario}: Koa + the library calls alone`, baseline!, server, {
        ...request,
        url: server.url + pathname + search,
      }),
    );
  } finally {
    await server.close();
  }
}

/** A `tools/call` of `dns_lookup` for {@link DOMAIN}, as an agent's client sends it to `POST /mcp`. */
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'dns_lookup', arguments: { domain: DOMAIN } },
});

/**
 * The same cached lookup as `route` measured, as a `dns_lookup` tool call over Streamable HTTP (docs/mcp.md),
 * beside bare Koa answering its body; its server CPU per call against the route's, measured in the same run.
 */
async function measureMcp(label: string, server: ServerProcess, secret: string, route: BenchResult): Promise<void> {
  const request = {
    url: `${server.url}/mcp`,
    method: 'POST' as const,
    headers: { ...bearer(secret), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: MCP_CALL,
  };
  const answer = await fetch(request.url, request);
  if (answer.status !== 200) throw new Error(`POST /mcp answered ${answer.status}: ${await answer.text()}`);
  const bare = await startBare('koa', await answer.json());
  try {
    const mcp = await measure(
      `dns_lookup tool call over MCP (Streamable HTTP), cached, one key (${label})`,
      bare,
      server,
      request,
    );
    results.push(mcp);
    notes.push(
      `${label}: a cached dns_lookup tool call costs ${(mcp.cpuUs / route.cpuUs).toFixed(2)} × the server CPU of the cached ` +
        `GET /api/dns (${mcp.cpuUs.toFixed(1)} / ${route.cpuUs.toFixed(1)} µs; target ≤ 1.5).`,
    );
  } finally {
    await bare.close();
  }
}

let baseline: (ServerProcess & { name: string }) | undefined;
/** A bare Koa answering `/healthz`'s body, for the floor scenario. */
let healthBaseline: (ServerProcess & { name: string }) | undefined;
const memory: string[] = [];
let watches = '';
try {
  for (const { label, url, target } of stores) {
    console.error(`${label}:`);
    const env = envOf(url);
    const secret = cliKey(env, `bench-${label}`, 1_000_000_000);
    const mix = await manyKeys(url, DISTINCT_KEYS);
    const server = await startDossier(env, join(dir, `serve-${label}.log`));
    try {
      const body = await cachedBody(server, secret);
      baseline ??= await startBare('koa', body);
      const route = await measure(
        `GET /api/dns, cached, one key (${label})`,
        baseline,
        server,
        { url: server.url + LOOKUP, headers: bearer(secret) },
        target,
      );
      results.push(route);
      await measureFloor('lookup', `GET /api/dns (${label})`, env, { url: server.url + LOOKUP, headers: bearer(secret) });
      await measureMcp(label, server, secret, route);
      if (!QUICK) {
        const requests = mix.map((key) => ({ path: LOOKUP, headers: bearer(key) }));
        results.push(
          await measure(`GET /api/dns, cached, ${DISTINCT_KEYS.toLocaleString('en')} keys (${label})`, baseline, server, {
            url: server.url,
            requests,
          }),
        );
      }

      if (label === 'SQLite' && !QUICK) {
        // Dossier mounted in an app of each framework, against that framework bare, answering the same body.
        for (const framework of FRAMEWORKS) {
          const app = await startExample(framework, env, join(dir, `serve-${framework}.log`));
          const bare = await startBare(framework, body);
          try {
            results.push(
              await measure(
                `GET /api/dns, cached, one key, Dossier in ${bare.name === 'Express' ? 'an' : 'a'} ${bare.name} app (${label})`,
                bare,
                app,
                { url: app.url + LOOKUP, headers: bearer(secret) },
              ),
            );
          } finally {
            await bare.close();
            await app.close();
          }
        }
        // The floor: Dossier's cheapest route, through the same middleware (request id, errors, both fast
        // paths, a router) with no key, no store and no lookup. No route that does more can run faster.
        const health = await fetch(`${server.url}/healthz`);
        healthBaseline = await startBare('koa', await health.json());
        results.push(
          await measure('GET /healthz: the middleware alone (no key, no store)', healthBaseline, server, {
            url: `${server.url}/healthz`,
          }),
        );
      }
      if (label === 'SQLite') {
        const created = await fetch(`${server.url}/api/v1/documents`, {
          method: 'POST',
          headers: { ...bearer(secret), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'name=Bench&prompt=Notes+for+the+team',
        });
        const { data } = (await created.json()) as { data: { id: number } };
        results.push(
          await measure(
            `GET /api/v1/documents/{id} (${label})`,
            baseline,
            server,
            { url: `${server.url}/api/v1/documents/${data.id}`, headers: bearer(secret) },
            0.6,
          ),
        );
        await measureFloor('read', `GET /api/v1/documents/{id} (${label})`, env, {
          url: `${server.url}/api/v1/documents/${data.id}`,
          headers: bearer(secret),
        });
        results.push(
          await measure(
            `POST /api/v1/documents, offline generator (${label})`,
            baseline,
            server,
            {
              url: `${server.url}/api/v1/documents`,
              method: 'POST',
              headers: { ...bearer(secret), 'Content-Type': 'application/x-www-form-urlencoded' },
              body: 'name=Bench&prompt=Write+a+tweet+about+remote+work+for+small+teams&template_id=33&creativity=0.5',
            },
            0.3,
          ),
        );
        await measureFloor('create', `POST /api/v1/documents (${label})`, env, {
          url: `${server.url}/api/v1/documents`,
          method: 'POST',
          headers: { ...bearer(secret), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'name=Bench&prompt=Write+a+tweet+about+remote+work+for+small+teams&template_id=33&creativity=0.5',
        });
      }
    } finally {
      await server.close();
    }

    // The cost of growth: a fresh server's memory after 10,000 and after 100,000 lookups over the 10,000 keys.
    if (QUICK) continue;
    const fresh = await startDossier(env, join(dir, `fresh-${label}.log`));
    try {
      const requests = mix.map((key) => ({ path: LOOKUP, headers: bearer(key) }));
      await run({ url: fresh.url, requests }, 10_000);
      const after10k = fresh.rssMiB();
      await run({ url: fresh.url, requests }, 90_000);
      const after100k = fresh.rssMiB();
      const change = ((after100k - after10k) / after10k) * 100;
      memory.push(
        `| ${label} | ${after10k.toFixed(1)} | ${after100k.toFixed(1)} | ${change >= 0 ? '+' : ''}${change.toFixed(1)} % |`,
      );
      console.error(`  RSS ${after10k.toFixed(1)} MiB after 10,000, ${after100k.toFixed(1)} MiB after 100,000`);
    } finally {
      await fresh.close();
    }
  }
  if (EXTRAS)
    watches = await watchesBench(
      watchBenchStores(dir, redis?.url).filter((store) => chosen.includes(store.label.toLowerCase())),
      dns.address,
    );
} finally {
  await baseline?.close();
  await healthBaseline?.close();
  await redis?.close();
  await dns.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `${BENCH_ROUNDS} rounds of ${BENCH_SECONDS} s per scenario, wrk -t1 -c${CONNECTIONS} in a process of its own; medians; baseline = the bare framework in its own process (Koa unless the scenario names another), same requests, same JSON body; server CPU is the user + system time of the server's process group over the run, divided by the requests it answered (the store's own server not counted); Dossier at DOSSIER_LOG_LEVEL=info, its log to a file\n`,
);
console.log(markdownReport(results));
if (!QUICK) {
  console.log('\nServer RSS (MiB) over the 10,000-key mix, fresh process:\n');
  console.log('| store | after 10,000 requests | after 100,000 requests | change |\n|---|---:|---:|---:|');
  console.log(memory.join('\n'));
  console.log(`\n${watches}`);
  if (EXTRAS) console.log(`\n${await benchDocumentsScale(notes)}`);
  if (EXTRAS) console.log(`\n${await benchRecordsScale(notes)}`);
  if (EXTRAS) console.log(`\n${await dueBench(notes)}`);
  if (EXTRAS) console.log(`\n${await benchKeysScale(notes)}`);
  if (EXTRAS) console.log(`\n${await benchWatchUpgrade(notes)}`);
}
for (const note of notes) console.log(`\n${note}`);
