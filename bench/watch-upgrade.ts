import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { openBackend } from '../lib/stores/open-backend.js';
import { KeyvWatchStore, type StoredWatch } from '../lib/watches/keyv-watch-store.js';
import { numberedWatch } from '../test/support/stored-watch.js';
import { chosenStores, freshStore } from './bench-stores.js';

// `npm run bench`'s move of watches (issue 42, docs/storage.md "Watches as records"): on a fresh store of
// each kind, `BENCH_WATCH_UPGRADE` watches (10,000 unless it says otherwise; a hundred keys of ten owners)
// written as the release before the records wrote them (`KeyvWatchStore`: records with leased lists beside
// them), then the seconds a new release's first call takes to move them into the records.

const COUNT = Number(process.env.BENCH_WATCH_UPGRADE ?? 10_000);
const KEYS = 100;

/** The n-th watch of the bench, of key `n % KEYS`. */
function benchWatch(n: number): StoredWatch {
  return numberedWatch(`wat_${n.toString(16).padStart(16, '0')}`, n, Date.UTC(2026, 0, 1), {
    keyId: `key_${n % KEYS}`,
    owner: `acct_${n % 10}`,
  });
}

/** Writes {@link COUNT} watches as the release before wrote them, then moves them: the seconds of each. */
async function measure(url: string): Promise<{ written: number; moved: number; listed: number }> {
  const namespace = `upgrade${randomBytes(3).toString('hex')}`;
  const clock = { now: () => Date.now() };
  const old = openBackend(url, { namespace, clock, timeoutMs: 60_000 });
  const started = performance.now();
  try {
    // Each key's first watch through the release's own store (its lists made as it made them), the rest
    // written as it wrote them (the record, then the id at the end of its key's list), many at once.
    const store = new KeyvWatchStore(old.kv, old.counters);
    await Promise.all(Array.from({ length: Math.min(KEYS, COUNT) }, (_, n) => store.insert(benchWatch(n), COUNT)));
    for (let from = KEYS; from < COUNT; from += 500) {
      const batch = Array.from({ length: Math.min(500, COUNT - from) }, (_, i) => benchWatch(from + i));
      await Promise.all(batch.map((watch) => old.kv.set(`watch:${watch.id}`, watch)));
    }
    await Promise.all(
      Array.from({ length: Math.min(KEYS, COUNT) }, (_, key) => {
        const ids = Array.from({ length: Math.ceil((COUNT - key) / KEYS) }, (_, i) => benchWatch(key + i * KEYS).id);
        return old.kv.set(`watch-list:key:${benchWatch(key).keyId}`, ids);
      }),
    );
  } finally {
    await old.close();
  }
  const written = (performance.now() - started) / 1000;
  const opened = openBackend(url, { namespace, clock, timeoutMs: 600_000 });
  try {
    const moving = performance.now();
    const listed = await opened.watches!.adoptOldLists();
    return { written, moved: (performance.now() - moving) / 1000, listed };
  } finally {
    await opened.close();
  }
}

/** Measures the move on every store `BENCH_STORES` names; answers the report's Markdown. */
export async function benchWatchUpgrade(notes: string[]): Promise<string> {
  const rows: string[] = [];
  for (const kind of chosenStores()) {
    const store = await freshStore(kind, notes);
    if (store === undefined) continue;
    try {
      const { written, moved, listed } = await measure(store.url);
      console.error(
        `Watch move on ${store.label}: ${listed} of ${COUNT} watches written in ${written.toFixed(1)} s, moved in ${moved.toFixed(1)} s`,
      );
      if (listed !== COUNT) throw new Error(`${store.label} moved ${listed} watches of ${COUNT}`);
      rows.push(`| ${store.label} | ${written.toFixed(1)} s | ${moved.toFixed(1)} s |`);
    } finally {
      await store.drop();
    }
  }
  return (
    `Watches moved into the records: ${COUNT.toLocaleString('en')} watches of ${KEYS} keys written as the release before the ` +
    `records wrote them, then moved by a new release's first call.\n\n| store | written | moved |\n|---|---:|---:|\n${rows.join('\n')}`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const notes: string[] = [];
  console.log(await benchWatchUpgrade(notes));
  for (const note of notes) console.log(`\n${note}`);
}
