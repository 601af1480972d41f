import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../adapters/cli/run.js';

/** The compiled command, as `npx dossier` and `npm start` run it. */
export const MAIN = fileURLToPath(new URL('../../adapters/cli/main.js', import.meta.url));

/** How one run of the command ended. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The `dossier` command run in this process, through `runCli` as `main.js` runs it: for the `keys`
 * commands, usage errors and `serve`'s start-up failures, which need no process of their own. Each run
 * opens and closes its own store, as a separate command would; `env` is all the environment it sees
 * (`serve` on a free port of 127.0.0.1 unless it says otherwise). A `serve` that starts instead of
 * failing fails the test at once: it would otherwise wait for a signal inside the test process.
 */
export async function dossier(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  let stdout = '';
  let stderr = '';
  let started: () => void = () => {};
  const serving = new Promise<never>((_, reject) => {
    started = () => reject(new Error(`dossier ${args.join(' ')} started serving in the test process: ${stdout}`));
  });
  const out = (text: string): void => {
    stdout += text;
    if (text.includes('listening on')) started();
  };
  const run = runCli(args, { HOST: '127.0.0.1', PORT: '0', ...env }, { out, err: (text) => (stderr += text) });
  const code = await Promise.race([run, serving]);
  return { code, stdout, stderr };
}

/** What the command prints with `--json` (added to `args`), once it has succeeded. */
export async function dossierJson<T = Record<string, unknown>>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const run = await dossier([...args, '--json'], env);
  expect(run.code, `dossier ${args.join(' ')} --json: ${run.stderr}`).to.equal(0);
  return JSON.parse(run.stdout) as T;
}

/**
 * The command in a process of its own, for what only a process shows: a working directory, and the
 * exit of the process itself.
 */
export function dossierProcess(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { cwd, env: { PATH: process.env.PATH, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** A running `dossier serve`, with what it has printed so far. */
export interface Served {
  url: string;
  child: ChildProcess;
  out(): string;
  err(): string;
}

/** A program that serves Dossier as `dossier serve` does: the command itself, and each example app. */
export interface ServerProgram {
  name: string;
  /** What node runs. */
  args: string[];
}

/** `dossier serve`, and the example apps of each adapter that serve as it does (examples/serve-*.ts). */
export const SERVER_PROGRAMS: readonly ServerProgram[] = [
  { name: 'dossier serve', args: [MAIN, 'serve'] },
  ...['koa', 'express', 'fastify', 'hono'].map((name) => ({
    name: `examples/serve-${name}`,
    args: [fileURLToPath(new URL(`../../examples/serve-${name}.js`, import.meta.url))],
  })),
];

/**
 * Starts `dossier serve` (or another of the {@link SERVER_PROGRAMS}) on a free port of 127.0.0.1 and
 * waits for the line that names its URL.
 */
export async function serve(env: NodeJS.ProcessEnv, cwd?: string, program: ServerProgram = SERVER_PROGRAMS[0]!): Promise<Served> {
  const child = spawn(process.execPath, program.args, {
    cwd,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', ...env },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { url, child, out: () => out, err: () => err };
}

/** Stops a served process with SIGTERM and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Waits for a process to exit, and fails with what it wrote on standard error unless it exited 0. */
export async function succeeded(child: ChildProcess): Promise<void> {
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += String(chunk)));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, errors).to.equal(0);
}
