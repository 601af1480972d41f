import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The `dossier` command as users run it. */
const CLI = fileURLToPath(new URL('../adapters/cli/main.js', import.meta.url));

/** The frameworks Dossier is measured through, each against its bare self. */
export const FRAMEWORKS = ['koa', 'express', 'fastify', 'hono'] as const;

/** The name of a framework of {@link FRAMEWORKS}. */
export type Framework = (typeof FRAMEWORKS)[number];

/** A server in a process of its own. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size of the process now, in MiB (Linux `/proc`). */
  rssMiB(): number;
  /** CPU time (user and system) the process group has used so far, in ms (Linux `/proc`). */
  cpuMs(): number;
  close(): Promise<void>;
}

/**
 * `dossier serve` on a free port, as `npm start` runs it: configured by `env` (`DOSSIER_STORE`, …) the
 * way users configure it, at the default log level (`info`: a line a request), its standard error (the
 * log) sent to `log` as `2>>file` would.
 */
export function startDossier(env: Record<string, string>, log = '/dev/null'): Promise<ServerProcess> {
  return startProcess([CLI, 'serve'], { HOST: '127.0.0.1', PORT: '0', DOSSIER_LOG_LEVEL: 'info', ...env }, log);
}

/**
 * The example app of `framework` (examples/serve-<name>.js, Dossier mounted at its root), configured as
 * {@link startDossier} configures `dossier serve`.
 */
export function startExample(framework: Framework, env: Record<string, string>, log = '/dev/null'): Promise<ServerProcess> {
  const example = fileURLToPath(new URL(`../examples/serve-${framework}.js`, import.meta.url));
  return startProcess([example], { HOST: '127.0.0.1', PORT: '0', DOSSIER_LOG_LEVEL: 'info', ...env }, log);
}

/** The frameworks' names, as people write them. */
const NAMES: Record<Framework, string> = { koa: 'Koa', express: 'Express', fastify: 'Fastify', hono: 'Hono' };

/** The bare `framework` (bench/bare-<name>.js) answering `body` to every request: a baseline. */
export async function startBare(framework: Framework, body: unknown): Promise<ServerProcess & { name: string }> {
  const bare = await startProcess([fileURLToPath(new URL(`./bare-${framework}.js`, import.meta.url))], {
    BENCH_BODY: JSON.stringify(body),
  });
  return { ...bare, name: NAMES[framework] };
}

/**
 * Bare Koa making the library calls of one of Dossier's routes and nothing else (bench/floor-koa.js),
 * configured by `env` as {@link startDossier} configures `dossier serve`: the floor of that route.
 */
export async function startFloor(
  floor: 'lookup' | 'read' | 'create',
  env: Record<string, string>,
): Promise<ServerProcess & { name: string }> {
  const server = await startProcess([fileURLToPath(new URL('./floor-koa.js', import.meta.url))], { ...env, BENCH_FLOOR: floor });
  return { ...server, name: 'Koa + the same library calls' };
}

/** `dossier keys create --json` with `env`, as a user makes a key; returns the plaintext key. */
export function cliKey(env: Record<string, string>, name: string, dailyLimit: number): string {
  const result = spawnSync(
    process.execPath,
    [CLI, 'keys', 'create', '--name', name, '--daily-limit', String(dailyLimit), '--json'],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`dossier keys create failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { key: string }).key;
}

/**
 * `node args…` in a process group of its own (whose CPU time is the server's, threads and children
 * included), standard error to the file `log` (`undefined`: kept, for a failure to start).
 */
async function startProcess(args: string[], env: Record<string, string>, log?: string): Promise<ServerProcess> {
  const fd = log === undefined ? undefined : openSync(log, 'a');
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', fd ?? 'pipe'],
    detached: true,
  });
  if (fd !== undefined) closeSync(fd);
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + String(chunk)).slice(-4000);
  });
  let output = '';
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    const url = /listening on (http:\/\/\S+)/i.exec(output)?.[1];
    if (url !== undefined) {
      child.stdout!.resume();
      return {
        url,
        pid: child.pid!,
        rssMiB: () => rssMiB(child.pid!),
        cpuMs: () => groupCpuMs(child.pid!),
        close: () => stop(child),
      };
    }
  }
  if (log !== undefined && log !== '/dev/null') errors = readFileSync(log, 'utf8').slice(-4000);
  throw new Error(`${args.join(' ')} did not start: ${output}${errors}`);
}

/** Clock ticks per second, the unit of `/proc/<pid>/stat`'s times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** The CPU time (user and system) of the processes of group `group`, in ms. */
function groupCpuMs(group: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // After the command's name (which may hold spaces): state, ppid, pgrp, …; utime and stime are the
    // 12th and 13th fields after it (fields 14 and 15 of stat).
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kib === undefined ? NaN : Number(kib) / 1024;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await once(child, 'exit');
  clearTimeout(timer);
}

/** A private `redis-server` on a free port (none of the machine's shared one), or `undefined` without the binary. */
export async function startRedis(): Promise<{ url: string; close(): Promise<void> } | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    if (output.includes('Ready to accept connections')) {
      child.stdout!.resume();
      return { url: `redis://127.0.0.1:${port}`, close: () => stop(child) };
    }
  }
  throw new Error(`redis-server did not start: ${output}`);
}
