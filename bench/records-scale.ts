import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../lib/stores/open-backend.js';
import type { WatchRecord, WatchStore } from '../lib/ports/watch-store.js';
import { startRedis } from './processes.js';

// `npm run bench`'s watches at scale (issue 42): on each store, a key holding 100 and then 10,000
// watches; at each size, the median of creating and deleting one watch of that key, and of reading the
// first page (100) of its list and the exact total; then revoking the key (all its watches in one step).
// Measured on the store's own watch records, as a server process calls them; ratios 10,000 / 100.

/** A store to measure: its label and a fresh URL. */
interface ScaleStore {
  label: string;
  url: string;
}

const SIZES = [100, 10_000] as const;
/** Timed operations at each size, the median kept. */
const SAMPLES = Number(process.env.BENCH_RECORD_SAMPLES ?? 15);

/** The stores of this machine: SQLite always, Redis when redis-server is on PATH, PostgreSQL and MySQL when their URLs are set. */
async function scaleStores(dir: string, notes: string[]): Promise<{ stores: ScaleStore[]; close(): Promise<void> }> {
  const stores: ScaleStore[] = [{ label: 'SQLite', url: `sqlite://${join(dir, 'records.sqlite')}` }];
  const redis = await startRedis();
  if (redis !== undefined) stores.push({ label: 'Redis', url: redis.url });
  else notes.push('Watches at scale: Redis skipped (no redis-server on PATH).');
  const postgres = process.env.BENCH_POSTGRES ?? process.env.DOSSIER_TEST_POSTGRES;
  if (postgres !== undefined) stores.push({ label: 'PostgreSQL', url: postgres });
  const mysql = process.env.BENCH_MYSQL ?? process.env.DOSSIER_TEST_MYSQL;
  if (mysql !== undefined) stores.push({ label: 'MySQL', url: mysql });
  return { stores, close: async () => redis?.close() };
}

function aWatch(keyId: string, owner: string, n: number): WatchRecord {
  const at = new Date(Date.UTC(2030, 0, 1) + n).toISOString();
  return {
    id: `wat_${randomBytes(8).toString('hex')}`,
    type: 'dns',
    domain: `d${n}.example.test`,
    webhookUrl: 'https://hooks.example.test/in',
    intervalSeconds: 900,
    createdAt: at,
    lastCheckedAt: null,
    nextCheckAt: at,
    lastError: null,
    keyId,
    owner,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/** Fills a key up to `size` watches, 50 creations at once. */
async function fill(store: WatchStore, keyId: string, owner: string, from: number, size: number): Promise<void> {
  for (let n = from; n < size; n += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, size - n) }, (_, i) =>
        store.insert(aWatch(keyId, owner, n + i), Number.MAX_SAFE_INTEGER),
      ),
    );
  }
}

/** The lines of one store: each measure at each size, and the revoke. */
async function measureStore({ label, url }: ScaleStore): Promise<string[]> {
  const backend = openBackend(url, {
    namespace: `bench${randomBytes(3).toString('hex')}`,
    clock: { now: () => Date.now() },
    timeoutMs: 30_000,
  });
  const store = backend.watches!;
  try {
    const keyId = `key_${randomBytes(8).toString('hex')}`;
    const owner = `acct_${randomBytes(8).toString('hex')}`;
    const at: Record<number, { write: number; page: number }> = {};
    let filled = 0;
    for (const size of SIZES) {
      await fill(store, keyId, owner, filled, size);
      filled = size;
      const writes: number[] = [];
      const pages: number[] = [];
      for (let n = 0; n < SAMPLES; n += 1) {
        const watch = aWatch(keyId, owner, size + n);
        writes.push(await timed(async () => (await store.insert(watch, Number.MAX_SAFE_INTEGER)) && store.remove(watch.id)));
        pages.push(await timed(() => store.ofKey(keyId, { limit: 100 })));
      }
      at[size] = { write: median(writes), page: median(pages) };
    }
    const revoke = await timed(() => store.removeOfKey(keyId));
    const left = (await store.ofKey(keyId, { limit: 1 })).total;
    const ms = (value: number): string => `${value.toFixed(1)} ms`;
    const ratio = (measure: 'write' | 'page'): string => `${(at[10_000]![measure] / at[100]![measure]).toFixed(2)}×`;
    return [
      `| ${label} | create + delete | ${ms(at[100]!.write)} | ${ms(at[10_000]!.write)} | ${ratio('write')} |`,
      `| ${label} | first page of 100, total | ${ms(at[100]!.page)} | ${ms(at[10_000]!.page)} | ${ratio('page')} |`,
      `| ${label} | revoke the key (10,000 watches) | | ${ms(revoke)} | ${left} left |`,
    ];
  } finally {
    await backend.close();
  }
}

/** The table of watches at scale on every store of this machine, and what was skipped in `notes`. */
export async function benchRecordsScale(notes: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-records-'));
  const { stores, close } = await scaleStores(dir, notes);
  const lines = [
    '### Watches of one key at scale',
    '',
    '| store | measure | 100 watches | 10,000 watches | ratio |',
    '|---|---|---|---|---|',
  ];
  try {
    for (const store of stores) {
      console.error(`Watches at scale on ${store.label}…`);
      const measured = await measureStore(store);
      console.error(measured.join('\n'));
      lines.push(...measured);
    }
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const notes: string[] = [];
  console.log(await benchRecordsScale(notes));
  for (const note of notes) console.log(`\n${note}`);
}
