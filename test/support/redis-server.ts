import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { startSocketProxy } from './socket-proxy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when `redis-server` is on PATH. */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** A private redis-server that a test can stop, start again, freeze and thaw, always at the same URL. */
export interface TestRedis {
  /** `redis://127.0.0.1:PORT`: a port this test holds from start to close, whether Redis runs or not. */
  url: string;
  /** Kills redis-server (SIGKILL: what it kept is gone); connections to the URL then fail. */
  stop(): Promise<void>;
  /** Starts a new, empty redis-server behind the URL. */
  start(): Promise<void>;
  /** SIGSTOP: redis-server keeps its connections and answers nothing. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  /** Stops redis-server and the port, and removes its folder. */
  close(): Promise<void>;
}

/**
 * Starts redis-server on a Unix socket in a folder of its own, behind a TCP port on loopback that
 * forwards every connection to it ({@link startSocketProxy}): a restart needs no port freed and taken
 * again, which another process could have taken meanwhile.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-redis-'));
  const socketPath = join(dir, 'redis.sock');
  const proxy = await startSocketProxy(socketPath);
  let child: ChildProcess | undefined;

  const redis: TestRedis = {
    url: `redis://127.0.0.1:${proxy.port}`,
    async start() {
      const started = spawn('redis-server', ['--port', '0', '--unixsocket', socketPath, '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const failed = (): void => reject(new Error(`redis-server did not start: ${output}`));
        const read = (chunk: Buffer): void => {
          output += String(chunk);
          if (!/ready to accept connections/i.test(output)) return;
          started.stdout!.off('data', read); // still flowing: later output must not fill the pipe
          started.off('exit', failed);
          resolve();
        };
        started.stdout!.on('data', read);
        started.once('exit', failed);
      });
      child = started;
    },
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      running.kill('SIGCONT'); // a frozen one exits too
      running.kill('SIGKILL');
      await once(running, 'exit');
    },
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
    async close() {
      await redis.stop();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}
