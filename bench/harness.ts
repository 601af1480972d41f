import autocannon from 'autocannon';
import Koa from 'koa';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKoaApp } from '../adapters/koa/app.js';
import { createDossier, type Dossier } from '../lib/dossier.js';
import type { DossierOptions } from '../lib/options.js';

/** One measured scenario: medians over rounds, each round a baseline run then a scenario run. */
export interface BenchResult {
  name: string;
  /** Median requests per second of the scenario. */
  requestsPerSecond: number;
  /** Median requests per second of the baseline, measured in the same rounds. */
  baselinePerSecond: number;
  /** Median of the per-round ratios scenario / baseline. */
  ratio: number;
  /** Worst p99 latency of the scenario over the rounds, in ms. */
  p99Ms: number;
  /** Responses whose status was not of the expected class, plus errors and timeouts. */
  unexpected: number;
}

/** A request autocannon repeats. */
export interface BenchRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** @default 200 */
  expectStatus?: number;
}

/** Seconds of each run (`BENCH_SECONDS`); each scenario takes 2 × {@link BENCH_ROUNDS} runs. */
export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
/** Rounds per scenario (`BENCH_ROUNDS`). */
export const BENCH_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

let baselineUrl: string | undefined;

/**
 * The baseline every scenario is compared with: a bare Koa app answering a fixed JSON body, the same
 * body `GET /api/dns` answers in the benchmark (the load generator's own cost grows with the body, so a
 * smaller one would charge Dossier for the client's parsing). It stays up for the whole run, so that
 * each scenario's rounds measure it right beside the scenario.
 */
export async function startBaseline(body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = body;
  });
  const server = await listen(app.listen(0, '127.0.0.1'));
  baselineUrl = server.url;
  return server;
}

/**
 * Measures `request` against the baseline: {@link BENCH_ROUNDS} rounds of one baseline run and one
 * scenario run, so that both see the same machine (these are shared and noisy); the ratio is the
 * median of the rounds' ratios. The load runs in a worker thread, leaving the main thread to the
 * server under test.
 */
export async function measure(name: string, request: BenchRequest): Promise<BenchResult> {
  if (baselineUrl === undefined) throw new Error('startBaseline() first');
  const rounds: { baseline: number; scenario: number; p99: number; unexpected: number }[] = [];
  for (let round = 0; round < BENCH_ROUNDS; round += 1) {
    const baseline = await run({ url: baselineUrl });
    const scenario = await run(request);
    rounds.push({ baseline: baseline.rate, scenario: scenario.rate, p99: scenario.p99, unexpected: scenario.unexpected });
  }
  return {
    name,
    requestsPerSecond: median(rounds.map((r) => r.scenario)),
    baselinePerSecond: median(rounds.map((r) => r.baseline)),
    ratio: median(rounds.map((r) => r.scenario / r.baseline)),
    p99Ms: Math.max(...rounds.map((r) => r.p99)),
    unexpected: rounds.reduce((sum, r) => sum + r.unexpected, 0),
  };
}

async function run(request: BenchRequest): Promise<{ rate: number; p99: number; unexpected: number }> {
  const result = await autocannon({
    url: request.url,
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    connections: 32,
    duration: BENCH_SECONDS,
    workers: 1,
  });
  // autocannon counts status codes by class; a scenario expects one class (2xx, or e.g. 4xx).
  const byClass = result as unknown as Record<string, number>;
  const answered = ['1xx', '2xx', '3xx', '4xx', '5xx'].reduce((sum, name) => sum + (byClass[name] ?? 0), 0);
  const expected = byClass[`${Math.floor((request.expectStatus ?? 200) / 100)}xx`] ?? 0;
  return {
    rate: result.requests.average,
    p99: result.latency.p99,
    unexpected: answered - expected + result.errors + result.timeouts,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Waits for a server to listen and gives its URL and a way to close it. */
export async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Prints each result: its rate, the baseline's rate beside it, the ratio, p99 latency. */
export function printReport(results: BenchResult[]): void {
  console.log(`${BENCH_ROUNDS} rounds of ${BENCH_SECONDS} s per scenario; medians; baseline = bare Koa, fixed JSON`);
  console.table(
    results.map((r) => ({
      scenario: r.name,
      'req/s': Math.round(r.requestsPerSecond),
      'baseline req/s': Math.round(r.baselinePerSecond),
      ratio: r.ratio.toFixed(2),
      'p99 ms': r.p99Ms,
      unexpected: r.unexpected,
    })),
  );
}

/** A Dossier served over HTTP for one store of a benchmark. */
export interface BenchServer {
  /** `memory` or `sqlite`. */
  label: string;
  dossier: Dossier;
  url: string;
}

/**
 * Runs `scenarios` once on the memory store and once on a SQLite file in a temporary folder, each time
 * with a fresh Dossier served by the Koa adapter, and collects their results.
 */
export async function onEachStore(
  options: DossierOptions,
  scenarios: (server: BenchServer) => Promise<BenchResult[]>,
): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-'));
  const results: BenchResult[] = [];
  try {
    for (const [label, store] of [
      ['memory', 'memory://'],
      ['sqlite', `sqlite://${join(dir, 'bench.sqlite')}`],
    ] as const) {
      const dossier = createDossier({ ...options, store, cache: 'memory://' });
      const server = await listen(createKoaApp(dossier).listen(0, '127.0.0.1'));
      try {
        results.push(...(await scenarios({ label, dossier, url: server.url })));
      } finally {
        await server.close();
        await dossier.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
