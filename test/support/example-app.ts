import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { driveMounted, EXAMPLE_ADMIN_TOKEN } from './drive-mounted.js';
import { freePort } from './free-port.js';
import { projectRoot } from './paths.js';
import { packTarball, runToEnd, Started, waitUntilServing } from './snippets.js';

// The example apps of examples/<name>/ (Next.js, NestJS) as a team would have them: installed by npm from
// their committed package-lock.json, with Dossier from the packed tarball (the lockfile names it as
// `file:../../dossier-0.1.0.tgz`, where `npm pack` of the checkout writes it). An install takes minutes
// (Next.js, and better-sqlite3 built where no prebuilt binary fits), so its node_modules is kept outside
// the checkout, keyed by the lockfile, Node's version and the machine: a CI run in a fresh clone reuses
// it; a changed lockfile installs anew. Each run copies it (hard links, nothing is downloaded) and puts
// this checkout's tarball in place of the Dossier it was installed with.

/** Where installs are kept: `DOSSIER_EXAMPLES_CACHE`, or ~/.cache/dossier-examples. */
function cacheRoot(): string {
  return process.env.DOSSIER_EXAMPLES_CACHE ?? join(homedir(), '.cache', 'dossier-examples');
}

/** npm with the environment of a test: no prompts, no audit or funding calls, no update check. */
export function npmEnv(): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('DOSSIER_') && !name.startsWith('npm_')),
  );
  return {
    ...inherited,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): void {
  const ran = spawnSync(command, args, {
    cwd,
    env: npmEnv(),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  if (ran.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} in ${cwd}: ${ran.error?.message ?? ''} ${ran.status}\n${ran.stdout}\n${ran.stderr}`,
    );
  }
}

/** An example app ready to build: its sources, its installed node_modules, and Dossier from this checkout's tarball. */
export interface ExampleApp {
  /** The app's folder (`…/examples/<name>`), beside the tarball as in the checkout. */
  dir: string;
  /**
   * Runs `command` in the app's folder (with `env` added to npm's) to its end, failing with its output
   * when it fails or passes `timeoutMs`; meanwhile this process goes on (its test servers answer).
   */
  run(command: string, args: string[], timeoutMs?: number, env?: NodeJS.ProcessEnv): Promise<void>;
  /** Removes the app. */
  remove(): void;
}

/**
 * examples/`name` in a folder of its own, installed (from the cache when its lockfile was installed
 * before), with the tarball of this checkout as its `dossier`.
 */
export function prepareExample(name: string): ExampleApp {
  const source = join(projectRoot(), 'examples', name);
  const lock = readFileSync(join(source, 'package-lock.json'));
  const key = createHash('sha256')
    .update(lock)
    .update(`${process.version} ${process.platform} ${process.arch}`)
    .digest('hex')
    .slice(0, 16);
  const root = cacheRoot();
  const installed = join(root, `${name}-${key}`);
  mkdirSync(root, { recursive: true });
  if (!existsSync(join(installed, 'installed'))) install(name, source, installed);

  const work = mkdtempSync(join(root, `${name}-run-`));
  const dir = join(work, 'examples', name);
  mkdirSync(dir, { recursive: true });
  cpSync(source, dir, { recursive: true, filter: (path) => !/\/(node_modules|\.next|dist)$/.test(path) });
  // Hard links: a copy of hundreds of megabytes in a second, on the cache's own file system.
  run('cp', ['-al', join(installed, 'examples', name, 'node_modules'), join(dir, 'node_modules')], work, 300_000);
  // This checkout's Dossier in place of the one installed with the lockfile (same dependencies).
  const tarball = packTarball(work, npmEnv());
  const dossier = join(dir, 'node_modules', 'dossier');
  rmSync(dossier, { recursive: true, force: true });
  mkdirSync(dossier);
  run('tar', ['-xzf', tarball, '-C', dossier, '--strip-components=1'], work, 60_000);
  checkDependencies(name, dossier, join(dir, 'package-lock.json'));
  return {
    dir,
    async run(command, args, timeoutMs = 900_000, env = {}) {
      const ran = await runToEnd(command, args, { cwd: dir, env: { ...npmEnv(), ...env } }, timeoutMs);
      if (ran.status !== 0)
        throw new Error(`${command} ${args.join(' ')} ended with ${ran.status ?? ran.signal}:\n${ran.output}`);
    },
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}

/** `npm ci` of the example's lockfile into `installed`, with the tarball the lockfile names made from this checkout. */
function install(name: string, source: string, installed: string): void {
  const staging = `${installed}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const dir = join(staging, 'examples', name);
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(source, file), join(dir, file));
  const tarball = packTarball(staging, npmEnv());
  // The lockfile pins the tarball's checksum when it was written; this checkout's differs.
  const lockPath = join(dir, 'package-lock.json');
  const lockfile = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, { integrity?: string }> };
  lockfile.packages['node_modules/dossier']!.integrity =
    `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  writeFileSync(lockPath, JSON.stringify(lockfile, null, 2));
  if (basename(tarball) !== 'dossier-0.1.0.tgz')
    throw new Error(`the lockfile names dossier-0.1.0.tgz; npm pack wrote ${tarball}`);
  run('npm', ['ci', '--no-audit', '--no-fund'], dir, 1_200_000);
  writeFileSync(join(staging, 'installed'), new Date().toISOString());
  rmSync(installed, { recursive: true, force: true });
  renameSync(staging, installed);
}

/** Fails, saying what to do, when Dossier's dependencies are no longer those the example's lockfile installed. */
function checkDependencies(name: string, dossier: string, lockPath: string): void {
  const wanted = (JSON.parse(readFileSync(join(dossier, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies;
  const locked = (
    JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string> }> }
  ).packages['node_modules/dossier']?.dependencies;
  if (JSON.stringify(wanted) !== JSON.stringify(locked)) {
    throw new Error(
      `examples/${name}/package-lock.json was written for other dependencies of Dossier: run npm pack at the root, then npm install in examples/${name}`,
    );
  }
}

/** An example app's server, answering at `base` (`http://127.0.0.1:<port>/dossier`). */
export interface ExampleServer {
  base: string;
  /** What it has printed so far. */
  readonly output: string;
  /** Drives Dossier inside it (test/support/drive-mounted.ts), failing with what the server printed. */
  drive(): Promise<void>;
  stop(): Promise<unknown>;
}

/** What an example's suite works with, once its `before` hook has run. */
export interface ExampleSuite {
  app: ExampleApp;
  /** The suite's DNS server: it answers `example.test` with the suite's address. */
  dns: TestDnsServer;
  /** A SQLite store of its own, in the run's folder beside the app (made on the first request). */
  store(name: string): string;
  /**
   * Starts `command` with `args` (the port given) in `cwd` (the app's folder by default), on a free
   * loopback port (as PORT, HOST and HOSTNAME), with a store of its own named `storeName`, the suite's
   * DNS server and the panel on; resolves once its `/dossier/healthz` answers.
   */
  serve(command: string, args: (port: number) => string[], storeName: string, cwd?: string): Promise<ExampleServer>;
}

/**
 * The set-up of examples/`name`'s suite, registered as its hooks (call it in the `describe`): before the
 * tests, a DNS server that answers `example.test` with `address` and the app prepared
 * ({@link prepareExample}); after them, both gone. The returned object's fields are set by then.
 */
export function exampleSuite(name: string, address: string): ExampleSuite {
  const suite = {} as ExampleSuite;
  before(async () => {
    suite.dns = await startDnsServer({ 'example.test': { A: [{ address, ttl: 600 }] } });
    suite.app = prepareExample(name);
    mkdirSync(join(dirname(dirname(suite.app.dir)), 'data'));
  });
  after(async () => {
    await suite.dns?.close();
    suite.app?.remove();
  });
  suite.store = (store) => join(dirname(dirname(suite.app.dir)), 'data', `${store}.sqlite`);
  suite.serve = async (command, args, storeName, cwd = suite.app.dir) => {
    const port = await freePort();
    const server = new Started(command, args(port), {
      cwd,
      env: {
        ...npmEnv(),
        PORT: String(port),
        HOST: '127.0.0.1',
        HOSTNAME: '127.0.0.1',
        DOSSIER_STORE: `sqlite://${suite.store(storeName)}`,
        DOSSIER_DNS_SERVERS: suite.dns.address,
        DOSSIER_ADMIN_TOKEN: EXAMPLE_ADMIN_TOKEN,
      },
    });
    const base = `http://127.0.0.1:${port}/dossier`;
    await waitUntilServing(server, `${base}/healthz`);
    return {
      base,
      get output() {
        return server.output;
      },
      async drive() {
        try {
          await driveMounted(base, 'example.test', address);
        } catch (error) {
          (error as Error).message += `\nThe server printed:\n${server.output}`;
          throw error;
        }
      },
      stop: () => server.stop(),
    };
  };
  return suite;
}
