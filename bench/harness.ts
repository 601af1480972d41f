import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One measured scenario: medians over rounds, each round a baseline run then a scenario run. */
export interface BenchResult {
  name: string;
  /** The bare framework the baseline is (Koa, Express, …). */
  baselineName: string;
  /** Median requests per second of the scenario. */
  requestsPerSecond: number;
  /** Median requests per second of the baseline, measured in the same rounds. */
  baselinePerSecond: number;
  /** Median p99 latency of the scenario over the rounds, in ms. */
  p99Ms: number;
  /** Median p99 latency of the baseline over the same rounds, in ms. */
  baselineP99Ms: number;
  /** Median CPU time of the scenario's server per request, in µs: steadier than req/s on a shared machine. */
  cpuUs: number;
  /** Median CPU time of the baseline's server per request, in µs, over the same rounds. */
  baselineCpuUs: number;
  /** Median of the rounds' ratios baseline CPU / scenario CPU per request: 1 is as cheap as the bare framework. */
  ratio: number;
  /** The target of that ratio, if the scenario has one. */
  target?: number;
  /** Answers that were not 2xx or 3xx, plus socket errors. */
  unexpected: number;
}

/** A server under load: where it answers, and the CPU time its process group has used so far. */
export interface Measured {
  url: string;
  cpuMs(): number;
}

/** A baseline: a bare framework answering the same body, and its name. */
export interface Baseline extends Measured {
  name: string;
}

/** What the load generator repeats: one request, or a list that each connection cycles through. */
export interface BenchRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Paths and headers cycled through (each connection in turn), instead of one request. */
  requests?: { path: string; headers: Record<string, string> }[];
}

/** `BENCH_QUICK=1`: the issue-30 paths only, shorter and fewer rounds, for a check while working. */
export const QUICK = process.env.BENCH_QUICK === '1';
/** Seconds of each run (`BENCH_SECONDS`). */
export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 3));
/** Rounds per scenario (`BENCH_ROUNDS`). */
export const BENCH_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Connections of the load generator (wrk's `-c`). */
export const CONNECTIONS = 50;

if (spawnSync('wrk', ['--version']).error !== undefined) {
  throw new Error('npm run bench needs wrk on the PATH (apt-get install wrk, brew install wrk)');
}

/**
 * Measures `request` against `baseline`: {@link BENCH_ROUNDS} rounds of one baseline run and one
 * scenario run, so that both see the same machine (these are shared and noisy); the ratio is the median
 * of the rounds' ratios. The load comes from wrk, a process of its own; the servers run in theirs. The
 * baseline gets the very same requests (method, paths, headers, body), so that the load generator does
 * the same work in both runs.
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
    const base = await run({ ...request, url: sameRequestOn(baseline.url, request.url) }, undefined, baseline);
    const scenario = await run(request, undefined, server);
    rounds.push({ baseline: base, scenario });
  }
  const result: BenchResult = {
    name,
    baselineName: baseline.name,
    requestsPerSecond: median(rounds.map((r) => r.scenario.rate)),
    baselinePerSecond: median(rounds.map((r) => r.baseline.rate)),
    p99Ms: median(rounds.map((r) => r.scenario.p99)),
    baselineP99Ms: median(rounds.map((r) => r.baseline.p99)),
    cpuUs: median(rounds.map((r) => r.scenario.cpuUs)),
    baselineCpuUs: median(rounds.map((r) => r.baseline.cpuUs)),
    ratio: median(rounds.map((r) => r.baseline.cpuUs / r.scenario.cpuUs)),
    target,
    unexpected: rounds.reduce((sum, r) => sum + r.scenario.unexpected, 0),
  };
  console.error(
    `  ${name}: ${result.cpuUs.toFixed(1)} µs of server CPU a request, bare ${baseline.name} ${result.baselineCpuUs.toFixed(1)}: ` +
      `ratio ${result.ratio.toFixed(2)}${target === undefined ? '' : ` (target ≥ ${target})`}; ${Math.round(result.requestsPerSecond)} req/s`,
  );
  return result;
}

/** `url`'s path and query on the server at `base`. */
function sameRequestOn(base: string, url: string): string {
  const { pathname, search } = new URL(url);
  return new URL(pathname + search, base).href;
}

interface Run {
  /** Requests answered. */
  requests: number;
  rate: number;
  p99: number;
  unexpected: number;
  /** The server's CPU time per request answered, in µs (NaN when no server was named). */
  cpuUs: number;
}

/** A Lua string literal. */
const lua = (text: string): string => JSON.stringify(text);

/** wrk's script for `request`: the method, headers and body, or the list cycled through. */
function script(request: BenchRequest): string {
  const lines = [`wrk.method = ${lua(request.method ?? 'GET')}`];
  if (request.body !== undefined) lines.push(`wrk.body = ${lua(request.body)}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  if (request.requests !== undefined) {
    const entries = request.requests.map(
      ({ path, headers }) =>
        `{${lua(path)}, {${Object.entries(headers)
          .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
          .join(', ')}}}`,
    );
    lines.push(
      `local list = {\n${entries.join(',\n')}\n}`,
      'local at = 0',
      'request = function()',
      '  at = at % #list + 1',
      '  return wrk.format(nil, list[at][1], list[at][2])',
      'end',
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * One load run of wrk (`-c` {@link CONNECTIONS}, one thread): for `BENCH_SECONDS`, or until `amount`
 * requests have been answered when given (wrk runs by time: it is run again for what is left). `server`'s
 * CPU time is read around it.
 */
export async function run(request: BenchRequest, amount?: number, server?: Measured): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-wrk-'));
  const file = join(dir, 'script.lua');
  writeFileSync(file, script(request));
  const cpuBefore = server?.cpuMs() ?? NaN;
  const totals = { requests: 0, unexpected: 0, seconds: 0, p99: 0 };
  try {
    do {
      const seconds = amount === undefined ? BENCH_SECONDS : 2;
      const output = await wrk(['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', file, request.url]);
      const answered = Number(/(\d+) requests in/.exec(output)?.[1] ?? NaN);
      if (!Number.isFinite(answered)) throw new Error(`wrk said: ${output}`);
      totals.requests += answered;
      totals.seconds += seconds;
      totals.unexpected +=
        Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0) +
        Number(/Socket errors:.*?(\d+)\s*$/m.exec(output)?.[1] ?? 0);
      totals.p99 = Math.max(totals.p99, latencyMs(/^\s+99%\s+(\S+)/m.exec(output)?.[1] ?? '0ms'));
    } while (amount !== undefined && totals.requests < amount);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpuMs = (server?.cpuMs() ?? NaN) - cpuBefore;
  return {
    requests: totals.requests,
    rate: totals.requests / totals.seconds,
    p99: totals.p99,
    unexpected: totals.unexpected,
    cpuUs: (cpuMs * 1000) / Math.max(totals.requests, 1),
  };
}

function wrk(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`wrk exited with ${code}: ${output}`))));
  });
}

/** wrk's latency (`812.00us`, `1.23ms`, `2.01s`) in ms. */
function latencyMs(text: string): number {
  const value = Number.parseFloat(text);
  if (text.endsWith('us')) return value / 1000;
  if (text.endsWith('ms')) return value;
  if (text.endsWith('s')) return value * 1000;
  return value;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The results as a Markdown table (docs/benchmarks.md shows this table). */
export function markdownReport(results: BenchResult[]): string {
  const lines = [
    '| scenario | Dossier CPU µs/req | baseline | baseline CPU µs/req | ratio bare / Dossier (target) | req/s | baseline req/s | p99 ms | baseline p99 ms | unexpected |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const target = r.target === undefined ? '' : ` (≥ ${r.target})`;
    lines.push(
      `| ${r.name} | ${r.cpuUs.toFixed(1)} | bare ${r.baselineName} | ${r.baselineCpuUs.toFixed(1)} | ${r.ratio.toFixed(2)}${target} | ` +
        `${Math.round(r.requestsPerSecond)} | ${Math.round(r.baselinePerSecond)} | ${r.p99Ms.toFixed(1)} | ${r.baselineP99Ms.toFixed(1)} | ${r.unexpected} |`,
    );
  }
  return lines.join('\n');
}
