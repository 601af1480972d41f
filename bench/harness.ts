import autocannon from 'autocannon';

/** One measured scenario: medians over rounds, each round a baseline run then a scenario run. */
export interface BenchResult {
  name: string;
  /** The bare framework the baseline is (Koa, Express, …). */
  baselineName: string;
  /** Median requests per second of the scenario. */
  requestsPerSecond: number;
  /** Median requests per second of the baseline, measured in the same rounds. */
  baselinePerSecond: number;
  /** Median of the per-round ratios scenario / baseline. */
  ratio: number;
  /** Median p99 latency of the scenario over the rounds, in ms. */
  p99Ms: number;
  /** Median p99 latency of the baseline over the same rounds, in ms. */
  baselineP99Ms: number;
  /** Median CPU time of the scenario's server per request, in µs: steadier than req/s on a shared machine. */
  cpuUs: number;
  /** Median CPU time of the baseline's server per request, in µs, over the same rounds. */
  baselineCpuUs: number;
  /** The target ratio of this scenario, if it has one. */
  target?: number;
  /** Responses whose status was not the expected one's class, plus errors and timeouts. */
  unexpected: number;
}

/** A server under load: where it answers, and the CPU time its process has used so far. */
export interface Measured {
  url: string;
  cpuMs(): number;
}

/** A baseline: a bare framework answering the same body, and its name. */
export interface Baseline extends Measured {
  name: string;
}

/** What autocannon repeats: one request, or a list that each connection cycles through. */
export interface BenchRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Paths and headers cycled through (each connection in turn), instead of one request. */
  requests?: { path: string; headers: Record<string, string> }[];
  /** @default 200 */
  expectStatus?: number;
}

/** Seconds of each run (`BENCH_SECONDS`). */
export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** Rounds per scenario (`BENCH_ROUNDS`). */
export const BENCH_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Connections of the load generator. */
export const CONNECTIONS = 32;

/**
 * Measures `request` against the baseline at `baselineUrl`: {@link BENCH_ROUNDS} rounds of one
 * baseline run and one scenario run, so that both see the same machine (these are shared and noisy);
 * the ratio is the median of the rounds' ratios. The load comes from this process, the servers run in
 * their own. The baseline gets the very same requests (method, paths, headers, body), so that the load
 * generator does the same work in both runs: a list of 10,000 requests costs it more per request than
 * one request repeated.
 */
export async function measure(
  name: string,
  baseline: Baseline,
  server: Measured,
  request: BenchRequest,
  target?: number,
): Promise<BenchResult> {
  const rounds: { baseline: Run; scenario: Run }[] = [];
  for (let round = 0; round < BENCH_ROUNDS; round += 1) {
    const base = await run({ ...request, url: sameRequestOn(baseline.url, request.url), expectStatus: 200 }, undefined, baseline);
    const scenario = await run(request, undefined, server);
    rounds.push({ baseline: base, scenario });
  }
  const result: BenchResult = {
    name,
    baselineName: baseline.name,
    requestsPerSecond: median(rounds.map((r) => r.scenario.rate)),
    baselinePerSecond: median(rounds.map((r) => r.baseline.rate)),
    ratio: median(rounds.map((r) => r.scenario.rate / r.baseline.rate)),
    p99Ms: median(rounds.map((r) => r.scenario.p99)),
    baselineP99Ms: median(rounds.map((r) => r.baseline.p99)),
    cpuUs: median(rounds.map((r) => r.scenario.cpuUs)),
    baselineCpuUs: median(rounds.map((r) => r.baseline.cpuUs)),
    target,
    unexpected: rounds.reduce((sum, r) => sum + r.scenario.unexpected, 0),
  };
  console.error(
    `  ${name}: ${Math.round(result.requestsPerSecond)} req/s, ${result.ratio.toFixed(2)}× bare ${baseline.name}; ` +
      `${Math.round(result.cpuUs)} µs of server CPU a request, ${(result.cpuUs / result.baselineCpuUs).toFixed(2)}× bare ${baseline.name}'s`,
  );
  return result;
}

/** `url`'s path and query on the server at `base`. */
function sameRequestOn(base: string, url: string): string {
  const { pathname, search } = new URL(url);
  return new URL(pathname + search, base).href;
}

interface Run {
  rate: number;
  p99: number;
  unexpected: number;
  /** The server's CPU time per request answered, in µs (NaN when no server was named). */
  cpuUs: number;
}

/** One load run: for `BENCH_SECONDS`, or for `amount` requests when given; `server`'s CPU time is read around it. */
export async function run(request: BenchRequest, amount?: number, server?: Measured): Promise<Run> {
  const cpuBefore = server?.cpuMs() ?? NaN;
  const result = await autocannon({
    url: request.url,
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    requests: request.requests,
    connections: CONNECTIONS,
    ...(amount === undefined ? { duration: BENCH_SECONDS } : { amount }),
  });
  // autocannon counts status codes by class; a scenario expects one class (2xx, or e.g. 4xx).
  const byClass = result as unknown as Record<string, number>;
  const answered = ['1xx', '2xx', '3xx', '4xx', '5xx'].reduce((sum, name) => sum + (byClass[name] ?? 0), 0);
  const expected = byClass[`${Math.floor((request.expectStatus ?? 200) / 100)}xx`] ?? 0;
  const cpuMs = (server?.cpuMs() ?? NaN) - cpuBefore;
  return {
    rate: result.requests.average,
    p99: result.latency.p99,
    unexpected: answered - expected + result.errors + result.timeouts,
    cpuUs: (cpuMs * 1000) / Math.max(answered, 1),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The results as a Markdown table (docs/benchmarks.md shows this table). */
export function markdownReport(results: BenchResult[]): string {
  const lines = [
    '| scenario | server CPU µs/req | baseline | baseline CPU µs/req | CPU ratio | req/s | baseline req/s | ratio (target) | p99 ms | baseline p99 ms | unexpected |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const target = r.target === undefined ? '' : ` (≥ ${r.target})`;
    lines.push(
      `| ${r.name} | ${Math.round(r.cpuUs)} | bare ${r.baselineName} | ${Math.round(r.baselineCpuUs)} | ${(r.cpuUs / r.baselineCpuUs).toFixed(2)}× | ` +
        `${Math.round(r.requestsPerSecond)} | ${Math.round(r.baselinePerSecond)} | ${r.ratio.toFixed(2)}${target} | ` +
        `${r.p99Ms} | ${r.baselineP99Ms} | ${r.unexpected} |`,
    );
  }
  return lines.join('\n');
}
