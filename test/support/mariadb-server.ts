import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { startSocketProxy } from './socket-proxy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { until } from './until.js';

/** True when `mariadbd` and `mariadb-install-db` are installed. */
export const hasMariadbServer = spawnSync('mariadbd', ['--version']).status === 0 && onPath('mariadb-install-db');

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A private mariadbd that a test can stop, start again, freeze and thaw, always at the same URL. */
export interface TestMariadb {
  /** `mysql://root@127.0.0.1:PORT/test`: a port this test holds from start to close, whether the server runs or not. */
  url: string;
  /** Kills mariadbd (what it committed stays on disk); connections to the URL then fail. */
  stop(): Promise<void>;
  /** Starts mariadbd again on the same files. */
  start(): Promise<void>;
  /**
   * SIGSTOP: mariadbd keeps its connections and answers nothing. Resolves once every thread of it has
   * stopped (the signal stops each thread as it is next scheduled: one woken by a statement can answer
   * it first).
   */
  freeze(): Promise<void>;
  /** SIGCONT. */
  thaw(): void;
  /** Stops mariadbd and the port, and removes its files. */
  close(): Promise<void>;
}

/** Small enough for a test: the server starts in well under a second and writes a few MB. */
const SERVER_OPTIONS = ['--innodb-buffer-pool-size=16M', '--innodb-log-file-size=8M', '--skip-log-bin'];

/**
 * Makes a database folder of its own (`mariadb-install-db`, root without a password) and starts
 * mariadbd on a Unix socket in it, behind a TCP port on loopback that forwards every connection to it
 * ({@link startSocketProxy}), as test/support/redis-server.ts does: a restart needs no port freed and
 * taken again. The machine's own server is never touched.
 */
export async function startTestMariadb(): Promise<TestMariadb> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-mariadb-'));
  const dataDir = join(dir, 'data');
  const socketPath = join(dir, 'mariadb.sock');
  const installed = spawnSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      '--auth-root-authentication-method=normal',
      '--user=root',
      '--skip-test-db',
      ...SERVER_OPTIONS,
    ],
    { encoding: 'utf8' },
  );
  if (installed.status !== 0) throw new Error(`mariadb-install-db failed: ${installed.stderr}`);
  const proxy = await startSocketProxy(socketPath);
  let child: ChildProcess | undefined;

  const server: TestMariadb = {
    url: `mysql://root@127.0.0.1:${proxy.port}/test`,
    async start() {
      const started = spawn(
        'mariadbd',
        [
          '--no-defaults',
          `--datadir=${dataDir}`,
          '--skip-networking',
          `--socket=${socketPath}`,
          '--user=root',
          ...SERVER_OPTIONS,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const failed = (): void => reject(new Error(`mariadbd did not start: ${output}`));
        const read = (chunk: Buffer): void => {
          output += String(chunk);
          if (!/ready for connections/i.test(output)) return;
          started.stderr!.off('data', read);
          started.stderr!.resume(); // still flowing: later output must not fill the pipe
          started.off('exit', failed);
          resolve();
        };
        started.stderr!.on('data', read);
        started.once('exit', failed);
      });
      child = started;
      const admin = await mysql.createConnection({ socketPath, user: 'root' });
      await admin.query('CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4');
      await admin.end();
    },
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      running.kill('SIGCONT'); // a frozen one exits too
      running.kill('SIGKILL');
      await once(running, 'exit');
    },
    async freeze() {
      const pid = child?.pid;
      if (pid === undefined) return;
      child!.kill('SIGSTOP');
      await until(() => threadStates(pid).every((state) => state === 'T'), 'every thread of mariadbd stopped');
    },
    thaw: () => void child?.kill('SIGCONT'),
    async close() {
      await server.stop();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** The state letter of each thread of process `pid` (`T` when stopped), from /proc. */
function threadStates(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((task) => {
    try {
      // The state follows the command's name, which may hold spaces, in parentheses.
      return readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8').split(') ')[1]!.charAt(0);
    } catch {
      return 'T'; // a thread that ended meanwhile
    }
  });
}
