import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { projectRoot } from './paths.js';
import { setTimeout as sleep } from 'node:timers/promises';

// The snippets of the README and docs/ as a reader meets them: the fenced blocks of each page, in order,
// with the HTML comment just above a fence saying how it runs when it is not a plain command.
//
//   <!-- not run: REASON -->                   never run (it needs the network, Docker, …): the reason is required
//   <!-- serves URL -->                        a server: it keeps running, ready once URL answers
//   <!-- runs until stopped, ready when it prints "TEXT" -->
//   <!-- snippets after: PAGE#HEADING -->      (anywhere in a page) run that section's snippets first,
//                                              as the reader did (a server started, $KEY set)
//
// A `sh` block runs in bash (set -e, pipefail) in a clone of the repository; the variables it sets are
// there for the next blocks of the page, as in one terminal. A `ts` block is a program of an app that
// installed the packed tarball. `text` is output or a diagram; `json` must parse.

/** The languages a fence may name. */
export const LANGUAGES = ['sh', 'ts', 'json', 'text'] as const;
export type Language = (typeof LANGUAGES)[number];

/** One fenced block of a page. */
export interface Snippet {
  page: string;
  /** The line of its opening fence. */
  line: number;
  /** The fence's language, as written (checked against {@link LANGUAGES}). */
  language: string;
  code: string;
  /** Why it is not run, when a marker says so. */
  notRun?: string;
  /** The URL that answers once this server is ready. */
  serves?: string;
  /** The text that this long-running program prints once it is ready. */
  readyWhenPrinted?: string;
  /** A marker comment above it that is none of the above. */
  unknownMarker?: string;
}

/** README.md and every Markdown file of docs/, as paths from the project's root. */
export function pages(): string[] {
  const docs = readdirSync(join(projectRoot(), 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', name));
  return ['README.md', ...docs];
}

/** The fenced blocks of `page`, and the `PAGE#HEADING` its snippets run after, if any. */
export function readSnippets(page: string): { snippets: Snippet[]; after?: string } {
  return parseSnippets(page, readFileSync(join(projectRoot(), page), 'utf8'));
}

/** The fenced blocks of the markdown `text` of `page`, and the `PAGE#HEADING` its snippets run after, if any. */
export function parseSnippets(page: string, text: string): { snippets: Snippet[]; after?: string } {
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  let after: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const prerequisite = /^<!--\s*snippets after:\s*(\S+)\s*-->$/.exec(line.trim());
    if (prerequisite) after = prerequisite[1];
    const fence = /^(`{3,})(\S*)\s*$/.exec(line);
    if (!fence) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && lines[index] !== fence[1]; index++) body.push(lines[index]!);
    const snippet: Snippet = { page, line: start + 1, language: fence[2]!, code: body.join('\n') + '\n' };
    const marker = /^<!--\s*(.*?)\s*-->$/.exec(lines[start - 1]?.trim() ?? '')?.[1];
    if (marker !== undefined && !marker.startsWith('snippets after:')) {
      const notRun = /^not run:\s*(.*)$/.exec(marker);
      const serves = /^serves\s+(\S+)$/.exec(marker);
      const printed = /^runs until stopped, ready when it prints "([^"]+)"$/.exec(marker);
      if (notRun) snippet.notRun = notRun[1]!;
      else if (serves) snippet.serves = serves[1]!;
      else if (printed) snippet.readyWhenPrinted = printed[1]!;
      else snippet.unknownMarker = marker;
    }
    snippets.push(snippet);
  }
  return { snippets, after };
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The snippets of one section (`PAGE#HEADING`, GitHub's anchor), from its heading to the next of its level or above. */
export function sectionSnippets(target: string): Snippet[] {
  const [page, anchor] = target.split('#') as [string, string];
  const lines = readFileSync(join(projectRoot(), page), 'utf8').split('\n');
  const start = lines.findIndex((line) => {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    return heading !== null && slug(heading[2]!) === anchor;
  });
  if (start < 0) throw new Error(`${target}: no such heading`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  let end = lines.findIndex((line, index) => index > start && new RegExp(`^#{1,${level}}\\s`).test(line));
  if (end < 0) end = lines.length;
  return readSnippets(page).snippets.filter((snippet) => snippet.line > start && snippet.line <= end);
}

/** The ports the docs use, standing for free ones the runner has: its server, its resolver, a receiver of the reader's. */
export interface SnippetPorts {
  3000: number;
  5353: number;
  8080: number;
}

/** Rewrites the ports the docs name (3000, 5353, 8080) into the runner's free ones. */
export function withPorts(code: string, ports: SnippetPorts): string {
  return code.replace(/\b(3000|5353|8080)\b/g, (port) => String(ports[Number(port) as keyof SnippetPorts]));
}

/** What a finished snippet printed, for a failure's message. */
export interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** A program started in its own process group, so that stopping it stops what it started (npm's children). */
export class Started {
  readonly child: ChildProcess;
  output = '';
  exited: Promise<Ran>;

  constructor(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    // 'exit', not 'close': a background job of a shell snippet may hold its output open after it ends.
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (status, signal) => resolve({ status, signal, output: this.output })),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ctrl-C to the whole group, as a reader stops it; SIGKILL if it is still there after 10 s. */
  async stop(): Promise<Ran> {
    const group = -this.child.pid!;
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(group, name);
      } catch {
        // The group is gone already.
      }
    };
    signal('SIGINT');
    const killer = setTimeout(() => signal('SIGKILL'), 10_000);
    const ran = await this.exited;
    clearTimeout(killer);
    signal('SIGKILL'); // what the leader left behind, if anything
    return ran;
  }
}

/** Runs `command` to its end, failing past `timeoutMs` (the snippet hangs: a bug, not slowness). */
export async function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  timeoutMs = 120_000,
): Promise<Ran> {
  const started = new Started(command, args, options);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Ran>((resolve) => {
    timer = setTimeout(() => void started.stop().then((ran) => resolve({ ...ran, status: null })), timeoutMs);
  });
  const ran = await Promise.race([started.exited, timedOut]);
  clearTimeout(timer);
  return ran;
}

/**
 * Polls `condition` until it holds. Longer patience than the tests' `until`: here a program starts
 * through npm or npx, which takes seconds of a busy machine; past a minute it is stuck.
 */
async function untilStarted(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const giveUpAt = performance.now() + 60_000;
  while (!(await condition())) {
    if (performance.now() > giveUpAt) throw new Error(`waited 60 s, but not until ${what}`);
    await sleep(20);
  }
}

/** Waits until `url` answers over HTTP (any status), or the program ends, which fails. */
export async function waitUntilServing(started: Started, url: string): Promise<void> {
  await untilStarted(async () => {
    if (!started.running) throw new Error(`it stopped before ${url} answered:\n${started.output}`);
    try {
      await (await fetch(url, { redirect: 'manual' })).arrayBuffer();
      return true;
    } catch {
      return false;
    }
  }, `${url} answers`);
}

/** Waits until the program has printed `text`, or has ended, which fails. */
export async function waitUntilPrinted(started: Started, text: string): Promise<void> {
  await untilStarted(() => {
    if (!started.running) throw new Error(`it stopped before printing "${text}":\n${started.output}`);
    return started.output.includes(text);
  }, `it prints "${text}"`);
}

/**
 * A shell snippet, wrapped so that the variables it sets (`KEY=…`) are kept in `state` for the page's
 * next snippets, as one terminal keeps them.
 */
export function shellScript(code: string, state: string): string {
  return [
    'set -eo pipefail',
    `source ${JSON.stringify(state)}`,
    '__before=" $(compgen -v | tr "\\n" " ") "',
    code,
    'for __name in $(compgen -v); do',
    '  case "$__before" in *" $__name "*) ;; *) [[ $__name == __* || $__name == BASH* || $__name == _ ]] || declare -p "$__name" >> ' +
      JSON.stringify(state) +
      ' ;; esac',
    'done',
  ].join('\n');
}

/**
 * A clone of the repository as `npm ci` leaves it: each tracked top-level entry, `node_modules` and
 * `dist` linked from the checkout (nothing of the checkout's own `data/`).
 */
export function makeClone(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const tracked = spawnSync('git', ['ls-files'], { cwd: projectRoot(), encoding: 'utf8' });
  if (tracked.status !== 0) throw new Error(`git ls-files: ${tracked.stderr}`);
  const entries = new Set(
    tracked.stdout
      .split('\n')
      .filter(Boolean)
      .map((path) => path.split('/')[0]!),
  );
  for (const entry of [...entries, 'node_modules', 'dist']) symlinkSync(join(projectRoot(), entry), join(dir, entry));
}

/**
 * `npm pack` of the checkout (without its `prepare` script: dist/ is built already, and rebuilding it
 * would pull it from under the other tests), into `dir`; returns the tarball's path.
 */
export function packTarball(dir: string, env: NodeJS.ProcessEnv): string {
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: projectRoot(),
    env,
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`npm pack: ${packed.stderr}`);
  return join(dir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}

/**
 * An app that installed the tarball: `node_modules/dossier` is the tarball's content, and its
 * dependencies and peers are those of the checkout (linked: installing them would need the registry).
 */
export function makeApp(dir: string, tarball: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, 'dossier'), { recursive: true });
  const untar = spawnSync('tar', ['-xzf', tarball, '-C', join(modules, 'dossier'), '--strip-components=1']);
  if (untar.status !== 0) throw new Error(`tar: ${String(untar.stderr)}`);
  for (const entry of readdirSync(join(projectRoot(), 'node_modules'))) {
    if (entry === 'dossier' || entry.startsWith('.')) continue;
    symlinkSync(join(projectRoot(), 'node_modules', entry), join(modules, entry));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'your-app', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        types: ['node'],
        outDir: 'build',
        rootDir: 'snippets',
      },
      include: ['snippets'],
    }),
  );
  mkdirSync(join(dir, 'snippets'));
}

/** The file name of a TypeScript snippet in the app: its page and line. */
export function snippetFile(snippet: Snippet): string {
  return `${basename(snippet.page, '.md').toLowerCase()}-${snippet.line}.ts`;
}
