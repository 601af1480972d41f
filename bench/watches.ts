import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { createDossier, type Dossier } from '../lib/dossier.js';
import { DEFAULT_WATCH_CONCURRENCY } from '../lib/watches/jobs/timer-jobs.js';
import { startDnsServer, type DnsZone } from '../test/support/dns-server.js';
import { chosenStores, freshStore } from './bench-stores.js';
import { startDossier, startRedis } from './processes.js';

// The watches lines of `npm run bench` (also `node dist/bench/watches.js` alone):
// - 100, 1,000 and 10,000 hourly watches on SQLite (the timer engine) and on Redis (BullMQ). Once their
//   first checks are made, one worker process (bench/watch-worker.ts) is measured for a minute while
//   nothing is due: its calls to the store, Redis's commands (BullMQ's included), its RSS and the heap it
//   keeps after a full GC. Then 60 watches checked every minute are added, and the next check of each is
//   timed against when it was due.
// - {@link dueBench}: `BENCH_WATCH_DUE` (10,000) DNS watches due every minute on every store, checked by
//   one `dossier serve` at its default settings against a DNS server on loopback, every check timed.

const WORKER = fileURLToPath(new URL('./watch-worker.js', import.meta.url));

/** The counts of watches measured (`BENCH_WATCH_COUNTS`, a comma-separated list). */
const COUNTS = (process.env.BENCH_WATCH_COUNTS ?? '100,1000,10000').split(',').map(Number);

/** A store the bench measures watches on: a fresh one for each count. */
export interface WatchBenchStore {
  label: string;
  /** A fresh, empty store for the `n`-th count. */
  url(n: number): string;
}

/** What one worker did in its idle minute, and how late its due checks ran. */
interface WatchBenchLine {
  store: string;
  watches: number;
  firstChecksSeconds: number;
  readsPerMinute: number;
  writesPerMinute: number;
  /** Every command Redis ran in the minute, whoever asked (the worker is the only client then). */
  redisCommandsPerMinute: number | null;
  rssMiB: number;
  /** The heap in use after a full garbage collection: what the worker keeps, not what its first checks left. */
  heapMiB: number;
  /** The median and the most a check ran after it was due, in seconds. */
  lateP50: number;
  lateMax: number;
}

/** What the worker process says when asked. */
interface WorkerReport {
  reads: number;
  writes: number;
  checks: number;
  rssMiB: number;
  heapMiB: number;
}

/** Measures every count on every store, one worker process at a time; the report as a Markdown table. */
export async function watchesBench(stores: WatchBenchStore[], dnsAddress: string): Promise<string> {
  const lines: WatchBenchLine[] = [];
  for (const store of stores) {
    for (const [n, count] of COUNTS.entries()) {
      console.error(`  watches: ${count.toLocaleString('en')} on ${store.label}`);
      lines.push(await measure(store.label, store.url(n), count, dnsAddress));
    }
  }
  const row = (line: WatchBenchLine): string =>
    `| ${line.store} | ${line.watches.toLocaleString('en')} | ${line.firstChecksSeconds.toFixed(0)} s | ${line.readsPerMinute} | ` +
    `${line.writesPerMinute} | ${line.redisCommandsPerMinute ?? '–'} | ${line.rssMiB.toFixed(1)} | ${line.heapMiB.toFixed(1)} | ` +
    `${line.lateP50.toFixed(2)} s / ${line.lateMax.toFixed(2)} s |`;
  return [
    'Watches: one worker process, hourly watches, a minute while nothing is due (store calls at its ports; Redis commands, BullMQ included); then 60 watches checked every minute, each next check timed against when it was due:\n',
    '| store | watches | first checks of all | store reads / min | store writes / min | Redis commands / min | RSS (MiB) | heap after GC (MiB) | late (median / most) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...lines.map(row),
  ].join('\n');
}

async function measure(label: string, url: string, count: number, dnsAddress: string): Promise<WatchBenchLine> {
  const maker = createDossier({
    store: url,
    cache: 'memory://',
    workers: false,
    dnsServers: [dnsAddress],
    storeTimeoutMs: 30_000,
  });
  try {
    await createWatches(maker, 'hourly', count, 3600);
    const worker = await startWorker(url, dnsAddress);
    try {
      const started = performance.now();
      while ((await ask(worker)).checks < count) await sleep(1000);
      const firstChecksSeconds = (performance.now() - started) / 1000;
      // The burst's last writes settle before the quiet minute begins.
      await sleep(5000);
      // What asking Redis costs, to leave it out of the minute's count.
      const asking = (await redisCommands(url)) ?? 0;
      const commandsBefore = await redisCommands(url);
      await ask(worker, 'reset');
      await sleep(60_000);
      const idle = await ask(worker);
      const commandsAfter = await redisCommands(url);
      const collected = await ask(worker, 'gc');
      const late = await lateness(maker);
      return {
        store: label,
        watches: count,
        firstChecksSeconds,
        readsPerMinute: idle.reads,
        writesPerMinute: idle.writes,
        redisCommandsPerMinute:
          commandsBefore === null || commandsAfter === null ? null : commandsAfter - commandsBefore - (commandsBefore - asking),
        rssMiB: idle.rssMiB,
        heapMiB: collected.heapMiB,
        ...late,
      };
    } finally {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
  } finally {
    await maker.close();
  }
}

/** `count` dns watches every `intervalSeconds`, 100 a key (each key its own owner), made 20 at a time. */
async function createWatches(maker: Dossier, name: string, count: number, intervalSeconds: number): Promise<void> {
  const keys = await Promise.all(
    Array.from({ length: Math.ceil(count / 100) }, (_, k) => maker.keys.create({ name: `${name}-${k}`, owner: `${name}-${k}` })),
  );
  for (let start = 0; start < count; start += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, (_, i) => {
        const n = start + i;
        const { key } = keys[n % keys.length]!;
        return maker.watches.create({
          type: 'dns',
          domain: `${name}-${n}.bench.test`,
          keyId: key.id,
          owner: key.owner,
          intervalSeconds,
        });
      }),
    );
  }
}

/**
 * Adds 60 watches checked every minute and follows them for a little more than a minute: how long after
 * its due time (the `next_check_at` the check before it set) each one's second check ran.
 */
async function lateness(maker: Dossier): Promise<{ lateP50: number; lateMax: number }> {
  await createWatches(maker, 'minutely', 60, 60);
  const owner = 'minutely-0';
  const seen = new Map<string, { lastCheckedAt: string | null; nextCheckAt: string }>();
  const late: number[] = [];
  const until = performance.now() + 80_000;
  while (performance.now() < until && late.length < 60) {
    for (const watch of await maker.watches.list({ owner })) {
      const before = seen.get(watch.id);
      if (before !== undefined && before.lastCheckedAt !== null && watch.lastCheckedAt !== before.lastCheckedAt) {
        late.push(Math.max(0, Date.parse(watch.lastCheckedAt!) - Date.parse(before.nextCheckAt)) / 1000);
      }
      seen.set(watch.id, { lastCheckedAt: watch.lastCheckedAt, nextCheckAt: watch.nextCheckAt });
    }
    await sleep(250);
  }
  late.sort((a, b) => a - b);
  if (late.length < 60) throw new Error(`Only ${late.length} of the 60 minutely watches were checked again within 80 s.`);
  return { lateP50: late[30]!, lateMax: late.at(-1)! };
}

/** The worker process on `url`, once its engine has started. */
async function startWorker(url: string, dnsAddress: string): Promise<ChildProcess> {
  const worker = fork(WORKER, [], {
    env: { ...process.env, DOSSIER_STORE: url, DOSSIER_DNS_SERVERS: dnsAddress, DOSSIER_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--expose-gc'],
  });
  const [said] = (await once(worker, 'message')) as [unknown];
  if (said !== 'ready') throw new Error(`The watch worker said ${JSON.stringify(said)}.`);
  return worker;
}

/** What the worker says when asked `message` ('report', or 'reset' or 'gc' then report). */
async function ask(worker: ChildProcess, message = 'report'): Promise<WorkerReport> {
  const answered = once(worker, 'message') as Promise<[WorkerReport]>;
  worker.send(message);
  return (await answered)[0];
}

/** The commands the Redis server of `url` has run so far (one more for asking); `null` for another store. */
async function redisCommands(url: string): Promise<number | null> {
  if (!url.startsWith('redis')) return null;
  const client = createClient({ url });
  await client.connect();
  try {
    return Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))?.[1]);
  } finally {
    await client.quit();
  }
}

/**
 * What the store at `url` has been asked so far, as it counts it: the commands of the bench's own Redis
 * server (BullMQ's included), the transactions of the PostgreSQL database (BullMQ's included: each
 * statement outside a transaction is one); `null` for SQLite (no server) and MySQL (whose counters are
 * the whole server's, and other databases' clients share it).
 */
async function storeRequests(url: string): Promise<number | null> {
  if (url.startsWith('redis')) return redisCommands(url);
  if (!url.startsWith('postgres')) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The statistics are sent at the end of each transaction, at most once a second: what the last second did may be missing.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** The stores of a bench run: SQLite files in `dir`, and databases 1, 2, 3… of the Redis at `redisUrl`. */
export function watchBenchStores(dir: string, redisUrl: string | undefined): WatchBenchStore[] {
  const stores: WatchBenchStore[] = [{ label: 'SQLite', url: (n) => `sqlite://${join(dir, `watches-${n}.sqlite`)}` }];
  if (redisUrl !== undefined) stores.push({ label: 'Redis', url: (n) => `${redisUrl}/${n + 1}` });
  return stores;
}

/** How many DNS watches {@link dueBench} makes due every minute. */
const DUE = Number(process.env.BENCH_WATCH_DUE ?? 10_000);
/**
 * How long {@link dueBench} lets the checks run once each watch has had its first, before following them:
 * an interval and a half. The watches are all due when the server starts, and a check made more than half
 * an interval late in that first round finds its engine's next time for it too early to count (BullMQ
 * keeps each watch's times on the grid of its creation; a check runs at most half an interval early), so
 * it waits for the one after, at most an interval and a half after the first: the window opens once that
 * catching up is over, and shows whether the process keeps up.
 */
const SETTLE_MS = 90_000;
/** How long {@link dueBench} follows the checks after {@link SETTLE_MS}, in ms: two more rounds. */
const DUE_WINDOW_MS = 130_000;
/** Questions about one name this close together are one check (a DNS check asks several types at once). */
const ONE_CHECK_MS = 5000;

/** How one store kept up with {@link DUE} watches due every minute. */
interface DueLine {
  store: string;
  engine: string;
  firstChecksSeconds: number;
  /** Checks made in the window, against the ones due in it. */
  made: number;
  due: number;
  lateP50: number;
  lateP99: number;
  lateMax: number;
  /** The server's CPU time (user and system) in the window, per check made: what keeping up costs, whatever the machine's load. */
  cpuPerCheckMs: number;
  /** The store's own count of what it was asked in the window, per check made ({@link storeRequests}); `null` where it keeps none of its own. */
  storeRequestsPerCheck: number | null;
}

/**
 * {@link DUE} DNS watches every 60 s (100 a key), made on a fresh store of each kind, then checked by one
 * `dossier serve` process as `npm start` runs it (its default DOSSIER_WATCH_CONCURRENCY, BullMQ on Redis
 * and PostgreSQL, timers on SQLite and MySQL). The bench's DNS server on loopback answers every name and
 * notes when each check asks: a check is due 60 s after the one before it began (the watch's
 * `next_check_at`), and is late by how much later it began. Followed for {@link DUE_WINDOW_MS} from
 * {@link SETTLE_MS} after every watch had its first check; a check still not begun at the end is as late
 * as it is by then. The report,
 * a Markdown table.
 */
export async function dueBench(notes: string[]): Promise<string> {
  const zone: DnsZone = {};
  for (let n = 0; n < DUE; n += 1) zone[`due-${n}.bench.test`] = { A: [{ address: '192.0.2.1', ttl: 60 }] };
  const dns = await startDnsServer(zone);
  /** When each check of each name began (ms, this process's clock). */
  const checks = new Map<string, number[]>();
  const received = dns.received;
  received.push = (...questions) => {
    const now = performance.now();
    for (const { name } of questions) {
      // A check also asks about other names (`_dmarc.<domain>`, the parents' CAA): only the watched one
      // counts, or each watch would count as several and the window would open before all had a first check.
      if (!(name in zone)) continue;
      const times = checks.get(name);
      if (times === undefined) checks.set(name, [now]);
      else if (now - times.at(-1)! > ONE_CHECK_MS) times.push(now);
    }
    // What the server received is not kept: a million questions would only grow the bench's heap.
    return 0;
  };
  const lines: DueLine[] = [];
  try {
    for (const kind of chosenStores()) {
      const store = await freshStore(kind, notes);
      if (store === undefined) continue;
      try {
        console.error(`  watches due every minute: ${DUE.toLocaleString('en')} on ${store.label}`);
        checks.clear();
        const maker = createDossier({ store: store.url, cache: 'memory://', workers: false, storeTimeoutMs: 30_000 });
        try {
          await createWatches(maker, 'due', DUE, 60);
        } finally {
          await maker.close();
        }
        const server = await startDossier({
          DOSSIER_STORE: store.url,
          DOSSIER_CACHE: 'memory://',
          DOSSIER_DNS_SERVERS: dns.address,
        });
        try {
          const started = performance.now();
          while (checks.size < DUE) {
            if (performance.now() - started > 600_000)
              throw new Error(`Only ${checks.size} of ${DUE} watches were checked in 10 minutes.`);
            await sleep(500);
          }
          const firstChecksSeconds = (performance.now() - started) / 1000;
          await sleep(SETTLE_MS);
          const from = performance.now();
          const cpuFrom = server.cpuMs();
          const requestsFrom = await storeRequests(store.url);
          await sleep(DUE_WINDOW_MS);
          const to = performance.now();
          const cpuMs = server.cpuMs() - cpuFrom;
          const requestsTo = await storeRequests(store.url);
          const late: number[] = [];
          let made = 0;
          for (const times of checks.values()) {
            for (let k = 1; k < times.length; k += 1) {
              if (times[k]! < from || times[k]! > to) continue;
              late.push(Math.max(0, times[k]! - times[k - 1]! - 60_000) / 1000);
              made += 1;
            }
            // The next check, due 60 s after the last began: one not begun by the end is as late as it is then.
            const next = times.at(-1)! + 60_000;
            if (next < to) late.push((to - next) / 1000);
          }
          const due = late.length;
          late.sort((a, b) => a - b);
          lines.push({
            store: store.label,
            engine: store.label === 'Redis' || store.label === 'PostgreSQL' ? 'BullMQ' : 'timers',
            firstChecksSeconds,
            made,
            due,
            lateP50: late[Math.floor(late.length / 2)] ?? 0,
            lateP99: late[Math.floor(late.length * 0.99)] ?? 0,
            lateMax: late.at(-1) ?? 0,
            cpuPerCheckMs: cpuMs / Math.max(1, made),
            storeRequestsPerCheck:
              requestsFrom === null || requestsTo === null ? null : (requestsTo - requestsFrom) / Math.max(1, made),
          });
          console.error(`  ${JSON.stringify(lines.at(-1))}`);
        } finally {
          await server.close();
        }
      } finally {
        await store.drop();
      }
    }
  } finally {
    await dns.close();
  }
  return [
    `Watches due every minute: ${DUE.toLocaleString('en')} DNS watches (interval 60 s), one \`dossier serve\` at its defaults (DOSSIER_WATCH_CONCURRENCY ${DEFAULT_WATCH_CONCURRENCY}), a DNS server on loopback; every check begun in the ${DUE_WINDOW_MS / 1000} s from ${SETTLE_MS / 1000} s after each watch had its first, timed against when it was due (60 s after the one before it began):\n`,
    '| store | engine | first checks of all | checks made / due in the window | late: median | 99th percentile | most | server CPU a check | store requests a check |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...lines.map(
      (line) =>
        `| ${line.store} | ${line.engine} | ${line.firstChecksSeconds.toFixed(0)} s | ${line.made.toLocaleString('en')} / ${line.due.toLocaleString('en')} | ` +
        `${line.lateP50.toFixed(2)} s | ${line.lateP99.toFixed(2)} s | ${line.lateMax.toFixed(2)} s | ${line.cpuPerCheckMs.toFixed(1)} ms | ` +
        `${line.storeRequestsPerCheck?.toFixed(1) ?? '–'} |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.env.BENCH_WATCH_DUE_ONLY === '1') {
    const notes: string[] = [];
    console.log(await dueBench(notes));
    for (const note of notes) console.log(`\n${note}`);
  } else {
    const dns = await startDnsServer({});
    const redis = await startRedis();
    const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-watches-'));
    try {
      console.log(await watchesBench(watchBenchStores(dir, redis?.url), dns.address));
    } finally {
      await redis?.close();
      await dns.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
