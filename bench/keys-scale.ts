import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ApiKey, KeyEntry } from '../lib/ports/key-store.js';
import { openBackend } from '../lib/stores/open-backend.js';
import { AppendOnlyIndex } from '../lib/stores/shared/append-only-index.js';
import { startDnsServer } from '../test/support/dns-server.js';
import { chosenStores, freshStore, type BenchStore } from './bench-stores.js';
import { startDossier, type ServerProcess } from './processes.js';

// `npm run bench`'s keys at scale (issue 42): on each store, 1,000, 10,000 and 100,000 keys, loaded
// through the store's own bulk insert; at each size, one `dossier serve` process with default settings
// (the admin token set), driven over HTTP from this process, signed in to the panel: the median of the
// admin list's first page (50), the page five cursors in, a search matching 1 % of the keys, the panel's
// first view (`GET /admin`), a key's create and revoke, and a cached lookup with a key (the verify on
// every request's path). Then the server's CPU time a request of each read, over `BENCH_KEY_CPU_ROUNDS`
// requests of it in a row: what the machine's load moves less than the client's time. Ratios largest /
// smallest. Then the move of 100,000 keys written as today's
// release wrote them (`BENCH_KEY_UPGRADE`), timed as a new release opening the store runs it.

const SIZES = (process.env.BENCH_KEY_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_KEY_ROUNDS ?? 21);
const UPGRADE = Number(process.env.BENCH_KEY_UPGRADE ?? 100_000);
/** Requests of each read whose server CPU time is summed (`/proc` counts it in ticks of 10 ms). */
const CPU_ROUNDS = Number(process.env.BENCH_KEY_CPU_ROUNDS ?? 100);
const TOKEN = randomBytes(24).toString('hex');
/** One key in a hundred has this in its name: what the search asks for. */
const NEEDLE = 'needle';
/** What the cached lookup asks for, of the bench's own DNS server. */
const DOMAIN = 'example.com';

const MEASURES = ['first page', 'five cursors in', 'search (1 %)', 'panel first view', 'create', 'revoke', 'cached lookup'];
/** The rows of the table: the measures, then the server CPU time of the reads (the first four). */
const ROWS = [...MEASURES, ...MEASURES.slice(0, 4).map((name) => `${name}, server CPU`)];

/** The n-th key of the bench: one a millisecond from 2026 on, a hundred owners, one in a hundred named with {@link NEEDLE}. */
function benchKey(n: number): ApiKey {
  return {
    id: `key_${n.toString(16).padStart(16, '0')}`,
    name: `bench ${n % 100 === 0 ? NEEDLE : 'hay'} ${n}`,
    owner: `acct_${n % 100}`,
    scopes: ['lookup', 'documents'],
    dailyLimit: 1_000_000_000,
    createdAt: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
    revokedAt: null,
    expiresAt: null,
  };
}

/** Loads keys `from` to `to` (excluded) through the store's bulk insert; answers the seconds it took. */
async function seed(url: string, from: number, to: number): Promise<number> {
  const backend = openBackend(url, { namespace: 'dossier', clock: { now: () => Date.now() }, timeoutMs: 60_000 });
  const started = performance.now();
  try {
    for (let start = from; start < to; start += 5000) {
      const entries: KeyEntry[] = [];
      for (let n = start; n < Math.min(to, start + 5000); n += 1) {
        entries.push({ key: benchKey(n), secrets: [{ digest: createHash('sha256').update(`bench-secret-${n}`).digest('hex') }] });
      }
      await backend.keys!.insertMany(entries);
    }
  } finally {
    await backend.close();
  }
  return (performance.now() - started) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The time of one request, its answer read whole; refuses an answer that is not `status`. */
async function timed(url: string, init: RequestInit, status = 200): Promise<[number, Response, string]> {
  const started = performance.now();
  const answer = await fetch(url, { redirect: 'manual', ...init });
  const body = await answer.text();
  const ms = performance.now() - started;
  if (answer.status !== status)
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${answer.status}: ${body.slice(0, 200)}`);
  return [ms, answer, body];
}

/** Each measure's median at one size, on a server process on the store, then each read's server CPU time. */
async function measureSize(server: ServerProcess, size: number): Promise<number[]> {
  const [, signedIn] = await timed(
    `${server.url}/admin/sign-in`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
      body: new URLSearchParams({ token: TOKEN }),
    },
    303,
  );
  const cookie = (signedIn.headers.get('Set-Cookie') ?? '').split(';')[0]!;
  const reading = { headers: { Cookie: cookie } };
  const writing = { headers: { Cookie: cookie, Origin: server.url, 'Content-Type': 'application/json' } };
  const list = `${server.url}/admin/api/keys?limit=50`;
  let cursor = '';
  for (let page = 0; page < 5; page += 1) {
    const [, , body] = await timed(`${list}${cursor}`, reading);
    const { meta } = JSON.parse(body) as { meta: { total: number; next_cursor: string } };
    if (page === 0 && meta.total < size) throw new Error(`The list counts ${meta.total} keys of ${size}.`);
    cursor = `&cursor=${encodeURIComponent(meta.next_cursor)}`;
  }
  const [, , found] = await timed(`${list}&search=${NEEDLE}`, reading);
  const matched = (JSON.parse(found) as { meta: { total: number } }).meta.total;
  if (matched !== size / 100) throw new Error(`The search found ${matched} keys of ${size}, not ${size / 100}.`);
  const [, , created] = await timed(
    `${server.url}/admin/api/keys`,
    { ...writing, method: 'POST', body: '{"name":"lookups"}' },
    201,
  );
  const secret = (JSON.parse(created) as { data: { key: string } }).data.key;
  const lookup = `${server.url}/api/dns?domain=${DOMAIN}`;
  await timed(lookup, { headers: { Authorization: `Bearer ${secret}` } });
  const reads = [list, `${list}${cursor}`, `${list}&search=${NEEDLE}`, `${server.url}/admin`];
  const samples: number[][] = MEASURES.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [n, read] of reads.entries()) samples[n]!.push((await timed(read, reading))[0]);
    const [made, , body] = await timed(
      `${server.url}/admin/api/keys`,
      { ...writing, method: 'POST', body: '{"name":"made"}' },
      201,
    );
    samples[4]!.push(made);
    const id = (JSON.parse(body) as { data: { id: string } }).data.id;
    samples[5]!.push((await timed(`${server.url}/admin/api/keys/${id}/revoke`, { ...writing, method: 'POST', body: '{}' }))[0]);
    samples[6]!.push((await timed(lookup, { headers: { Authorization: `Bearer ${secret}` } }, 200))[0]);
  }
  const cpu: number[] = [];
  for (const read of reads) {
    const before = server.cpuMs();
    for (let round = 0; round < CPU_ROUNDS; round += 1) await timed(read, reading);
    cpu.push((server.cpuMs() - before) / CPU_ROUNDS);
  }
  return [...samples.map(median), ...cpu];
}

/** Seconds a new release takes to move `count` keys written as today's release wrote them (half of them rolled). */
async function measureUpgrade(url: string, count: number): Promise<{ written: number; moved: number }> {
  const namespace = `upgrade${randomBytes(3).toString('hex')}`;
  const clock = { now: () => Date.now() };
  const old = openBackend(url, { namespace, clock, timeoutMs: 60_000 });
  const started = performance.now();
  try {
    const index = new AppendOnlyIndex(old.kv, old.counters, 'keys');
    for (let start = 0; start < count; start += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, count - start) }, async (_, i) => {
          const key = benchKey(10_000_000 + start + i);
          const digest = createHash('sha256').update(`upgrade-${key.id}`).digest('hex');
          await old.kv.set(`key:${digest}`, key);
          await old.kv.set(`key-id:${key.id}`, digest);
          await index.append(digest);
        }),
      );
    }
  } finally {
    await old.close();
  }
  const written = (performance.now() - started) / 1000;
  const opened = openBackend(url, { namespace, clock, timeoutMs: 600_000 });
  try {
    const moving = performance.now();
    await opened.keys!.ready();
    return { written, moved: (performance.now() - moving) / 1000 };
  } finally {
    await opened.close();
  }
}

/** Measures every store at every size; answers the report's Markdown. */
export async function benchKeysScale(notes: string[]): Promise<string> {
  const report: string[] = [];
  const dns = await startDnsServer({ [DOMAIN]: { A: [{ address: '93.184.216.34', ttl: 3600 }] } });
  try {
    for (const kind of chosenStores()) {
      const store = await freshStore(kind, notes);
      if (store !== undefined) report.push(await measureStore(store, dns.address, notes));
    }
  } finally {
    await dns.close();
  }
  return (
    `Keys at scale: keys loaded through the store, one \`dossier serve\` process signed in to the panel; median of ${ROUNDS} ` +
    `(ms, as the client sees it, HTTP included); the server's CPU time a read (ms, the mean of ${CPU_ROUNDS}); RSS of the ` +
    `process after them.\n\n${report.join('\n\n')}`
  );
}

/** The table of one store. */
async function measureStore(store: BenchStore, dnsAddress: string, notes: string[]): Promise<string> {
  console.error(`Keys on ${store.label}:`);
  const at: { size: number; ms: number[]; rssMiB: number }[] = [];
  try {
    let seeded = 0;
    for (const size of SIZES) {
      const seconds = await seed(store.url, seeded, size);
      seeded = size;
      console.error(`  ${size.toLocaleString('en')} keys loaded in ${seconds.toFixed(1)} s`);
      const server = await startDossier({
        DOSSIER_STORE: store.url,
        DOSSIER_CACHE: 'memory://',
        DOSSIER_DNS_SERVERS: dnsAddress,
        DOSSIER_ADMIN_TOKEN: TOKEN,
      });
      try {
        const ms = await measureSize(server, size);
        at.push({ size, ms, rssMiB: server.rssMiB() });
        console.error(
          `  ${ms.map((value, n) => `${ROWS[n]} ${value.toFixed(1)} ms`).join(', ')}, load ${loadavg()[0]!.toFixed(1)}`,
        );
      } finally {
        await server.close();
      }
      // The keys the rounds made, beside the bench's, are a few dozen: the sizes stay what they say.
    }
    if (UPGRADE > 0) {
      const { written, moved } = await measureUpgrade(store.url, UPGRADE);
      console.error(
        `  ${UPGRADE.toLocaleString('en')} keys of today's release written in ${written.toFixed(1)} s, moved in ${moved.toFixed(1)} s`,
      );
      notes.push(
        `Keys on ${store.label}: ${UPGRADE.toLocaleString('en')} keys written as today's release writes them moved to the records in ${moved.toFixed(1)} s, at the first call of a new release.`,
      );
    }
  } finally {
    await store.drop();
  }
  return tableOf(store.label, at);
}

function tableOf(label: string, at: { size: number; ms: number[]; rssMiB: number }[]): string {
  const [first, last] = [at[0], at.at(-1)];
  const sizes = at.map(({ size }) => `${size.toLocaleString('en')} keys`).join(' | ');
  const lines = [
    `| ${label} | ${sizes} | ${last?.size.toLocaleString('en')} / ${first?.size.toLocaleString('en')} |`,
    `|---|${at.map(() => '---:').join('|')}|---:|`,
  ];
  ROWS.forEach((name, n) => {
    const ratio = first && last ? last.ms[n]! / first.ms[n]! : NaN;
    lines.push(`| ${name} | ${at.map(({ ms }) => ms[n]!.toFixed(1)).join(' | ')} | ${ratio.toFixed(2)}× |`);
  });
  lines.push(
    `| RSS (MiB) | ${at.map(({ rssMiB }) => rssMiB.toFixed(0)).join(' | ')} | ${first && last ? (last.rssMiB / first.rssMiB).toFixed(2) : ''}× |`,
  );
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const notes: string[] = [];
  console.log(await benchKeysScale(notes));
  for (const note of notes) console.log(`\n${note}`);
}
