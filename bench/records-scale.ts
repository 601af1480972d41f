import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBackend } from '../lib/stores/open-backend.js';
import { chosenStores, freshStore, watchRecordsBytes, type BenchStore } from './bench-stores.js';
import { startDnsServer, type TestDnsServer } from '../test/support/dns-server.js';
import { startDossier, type ServerProcess } from './processes.js';

// `npm run bench`'s watches at scale (issue 42), measured as users meet them: `dossier serve` in a
// process of its own on a fresh store, at its defaults (its checks against a DNS server on loopback),
// driven over HTTP from this one; each measure once the first checks of the watches made before it are
// over. One key holds 100 and then
// 10,000 watches; at each size, the median of creating one watch (POST /api/watches), deleting it
// (DELETE /api/watches/{id}) and reading the first page of the list with its exact total; ratios
// 10,000 / 100. Then, holding 10,000, `BENCH_WATCH_CHURN` (10,000) more watches are created and deleted,
// and the size of the watch records (bench/bench-stores.ts) is set against their size with the 10,000
// live alone. Last, the key is revoked (POST /admin/api/keys/{id}/revoke): timed, and what is left of
// its watches counted in the store.

const SIZES = [100, 10_000] as const;
/** Timed operations at each size, the median kept. */
const SAMPLES = Number(process.env.BENCH_RECORD_SAMPLES ?? 15);
/** Watches created and deleted while 10,000 are held. */
const CHURN = Number(process.env.BENCH_WATCH_CHURN ?? 10_000);
/** Requests in flight while filling and churning. */
const LANES = 8;
const ADMIN_TOKEN = `bench-admin-${randomBytes(16).toString('hex')}`;
/** The namespace `dossier serve` keeps its records under. */
const NAMESPACE = 'dossier';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** One request to the server; its JSON answer. @throws when its status is not `status` */
async function call(
  server: ServerProcess,
  method: string,
  path: string,
  auth: string,
  status: number,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** The key the watches are made with: its id and its plaintext. */
interface BenchKey {
  id: string;
  secret: string;
}

async function createWatch(server: ServerProcess, key: BenchKey, n: number): Promise<string> {
  const body = { type: 'dns', domain: `d${n}.example.com`, webhook_url: 'https://hooks.example.com/in' };
  const answer = (await call(server, 'POST', '/api/watches', key.secret, 201, body)) as { data: { id: string } };
  return answer.data.id;
}

async function deleteWatch(server: ServerProcess, key: BenchKey, id: string): Promise<void> {
  await call(server, 'DELETE', `/api/watches/${id}`, key.secret, 204);
}

/** Runs `work(n)` for n from `from` to `to`, {@link LANES} at once. */
async function inLanes(from: number, to: number, work: (n: number) => Promise<unknown>): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (next < to) await work(next++);
    }),
  );
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/** What was measured on one store. */
interface ScaleLines {
  scale: string[];
  size: string;
}

/** Resolves once the server's checks are over: the DNS server asked nothing for two seconds. */
async function checksOver(dns: TestDnsServer): Promise<void> {
  for (let asked = -1; asked !== dns.questions;) {
    asked = dns.questions;
    await sleep(2000);
  }
}

async function measureStore(store: BenchStore, dns: TestDnsServer): Promise<ScaleLines> {
  const server = await startDossier({
    DOSSIER_STORE: store.url,
    DOSSIER_CACHE: 'memory://',
    DOSSIER_DNS_SERVERS: dns.address,
    DOSSIER_ADMIN_TOKEN: ADMIN_TOKEN,
    DOSSIER_WATCHES_PER_KEY: String(SIZES.at(-1)! + LANES + SAMPLES),
  });
  try {
    const made = (await call(server, 'POST', '/admin/api/keys', ADMIN_TOKEN, 201, { name: 'watches at scale' })) as {
      data: { id: string; key: string };
    };
    const key: BenchKey = { id: made.data.id, secret: made.data.key };
    const at: Record<number, { create: number; remove: number; page: number }> = {};
    let filled = 0;
    for (const size of SIZES) {
      await inLanes(filled, size, (n) => createWatch(server, key, n));
      filled = size;
      await checksOver(dns);
      const creates: number[] = [];
      const removes: number[] = [];
      const pages: number[] = [];
      for (let n = 0; n < SAMPLES; n += 1) {
        let id = '';
        creates.push(await timed(async () => (id = await createWatch(server, key, size + n))));
        removes.push(await timed(() => deleteWatch(server, key, id)));
        pages.push(await timed(() => call(server, 'GET', '/api/watches?limit=100', key.secret, 200)));
      }
      at[size] = { create: median(creates), remove: median(removes), page: median(pages) };
    }
    const live = await watchRecordsBytes(store, NAMESPACE);
    await inLanes(0, CHURN, async (n) => deleteWatch(server, key, await createWatch(server, key, 100_000 + n)));
    await checksOver(dns);
    const churned = await watchRecordsBytes(store, NAMESPACE);
    const revoke = await timed(() => call(server, 'POST', `/admin/api/keys/${key.id}/revoke`, ADMIN_TOKEN, 200, {}));
    const left = await watchesLeft(store.url, key.id);
    const ms = (value: number): string => `${value.toFixed(1)} ms`;
    const ratio = (measure: 'create' | 'remove' | 'page'): string => `${(at[10_000]![measure] / at[100]![measure]).toFixed(2)}×`;
    const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
    return {
      scale: [
        `| ${store.label} | create | ${ms(at[100]!.create)} | ${ms(at[10_000]!.create)} | ${ratio('create')} |`,
        `| ${store.label} | delete | ${ms(at[100]!.remove)} | ${ms(at[10_000]!.remove)} | ${ratio('remove')} |`,
        `| ${store.label} | first page of 100, total | ${ms(at[100]!.page)} | ${ms(at[10_000]!.page)} | ${ratio('page')} |`,
        `| ${store.label} | revoke the key (10,000 watches) | | ${ms(revoke)} | ${left} left |`,
      ],
      size: `| ${store.label} | ${mib(live)} | ${mib(churned)} | ${(churned / live).toFixed(2)}× |`,
    };
  } finally {
    await server.close();
  }
}

/** The watches of key `keyId` left in the store at `url`, counted in the store itself. */
async function watchesLeft(url: string, keyId: string): Promise<number> {
  const backend = openBackend(url, { namespace: NAMESPACE, clock: { now: () => Date.now() }, timeoutMs: 30_000 });
  try {
    return (await backend.watches!.ofKey(keyId, { limit: 1 })).total;
  } finally {
    await backend.close();
  }
}

/** The tables of watches at scale and of their size after churn, on every store of this machine; what was skipped in `notes`. */
export async function benchRecordsScale(notes: string[]): Promise<string> {
  const scale: string[] = [];
  const sizes: string[] = [];
  // Every name is NXDOMAIN: a check is a failure counted, as quick as a loopback answer.
  const dns = await startDnsServer({});
  try {
    for (const kind of chosenStores()) {
      const store = await freshStore(kind, notes);
      if (store === undefined) continue;
      try {
        console.error(`Watches at scale on ${store.label}…`);
        const measured = await measureStore(store, dns);
        console.error([...measured.scale, measured.size].join('\n'));
        scale.push(...measured.scale);
        sizes.push(measured.size);
      } finally {
        await store.drop();
      }
    }
  } finally {
    await dns.close();
  }
  return [
    '### Watches of one key at scale',
    '',
    '`dossier serve` at its defaults over HTTP, medians of ' + `${SAMPLES}:`,
    '',
    '| store | measure | 100 watches | 10,000 watches | ratio |',
    '|---|---|---|---|---|',
    ...scale,
    '',
    `### The watch records after churn: 10,000 live, then ${CHURN.toLocaleString('en')} more created and deleted`,
    '',
    '| store | 10,000 live | after the churn | ratio |',
    '|---|---|---|---|',
    ...sizes,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const notes: string[] = [];
  console.log(await benchRecordsScale(notes));
  for (const note of notes) console.log(`\n${note}`);
}
