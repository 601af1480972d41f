import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** Debian's `nsd` (an authoritative DNS server), found in /usr/sbin too, which a user's PATH may leave out. */
const NSD = ['nsd', '/usr/sbin/nsd'].find((command) => spawnSync(command, ['-v']).status === 0);

/** True when NSD can be run. */
export const hasNsd = NSD !== undefined;

/** A real authoritative server, NSD, on loopback, serving zone files a test rewrites. */
export interface TestNsd {
  /** `127.0.0.1:PORT`, UDP and TCP. */
  address: string;
  /** Writes a zone's file anew and has NSD reload it (SIGHUP), resolving once NSD has read it. */
  reload(origin: string, text: string): Promise<void>;
  close(): Promise<void>;
}

const READY_MS = 10_000;

/**
 * Starts NSD in the foreground, as the user running the test (no root, no chroot), on a port of
 * loopback that was free a moment ago; it tries another when NSD cannot bind that one.
 * @param zones each zone's origin (`example.test`) and its file's text (with `$ORIGIN` and `$TTL`)
 */
export async function startNsd(zones: Record<string, string>): Promise<TestNsd> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-nsd-'));
  const zoneFile = (origin: string): string => join(dir, `${origin}.zone`);
  let mtime = Math.floor(Date.now() / 1000);
  const write = (origin: string, text: string): void => {
    writeFileSync(zoneFile(origin), text);
    // NSD reloads a file whose time changed: a rewrite within the same second must still count.
    mtime += 1;
    utimesSync(zoneFile(origin), mtime, mtime);
  };
  for (const [origin, text] of Object.entries(zones)) write(origin, text);
  let log = '';
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; child === undefined; attempt += 1) {
    port = await freePort();
    const config = join(dir, 'nsd.conf');
    writeFileSync(
      config,
      nsdConfig(
        dir,
        port,
        Object.keys(zones).map((origin) => [origin, zoneFile(origin)]),
      ),
    );
    const started = spawn(NSD!, ['-d', '-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    log = '';
    started.stderr!.on('data', (chunk: Buffer) => (log += String(chunk)));
    if (await until(() => /nsd started/.test(log), started)) child = started;
    else if (attempt === 5) throw new Error(`nsd did not start: ${log}`);
    else started.kill('SIGKILL');
  }
  const running = child;
  return {
    address: `127.0.0.1:${port}`,
    async reload(origin, text) {
      const read = `zone ${origin} read with success`;
      const before = log.split(read).length;
      write(origin, text);
      running.kill('SIGHUP');
      if (!(await until(() => log.split(read).length > before, running))) throw new Error(`nsd did not reload ${origin}: ${log}`);
    },
    async close() {
      if (running.exitCode === null && running.signalCode === null) {
        running.kill('SIGTERM');
        await once(running, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether `done()` holds within {@link READY_MS}, looking every 20 ms; false at once if `child` exits. */
async function until(done: () => boolean, child: ChildProcess): Promise<boolean> {
  for (const end = Date.now() + READY_MS; Date.now() < end;) {
    if (done()) return true;
    if (child.exitCode !== null || child.signalCode !== null) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

function nsdConfig(dir: string, port: number, zones: [string, string][]): string {
  return `server:
  ip-address: 127.0.0.1@${port}
  do-ip6: no
  username: ""
  chroot: ""
  zonesdir: "${dir}"
  pidfile: "${join(dir, 'nsd.pid')}"
  xfrdfile: "${join(dir, 'xfrd.state')}"
  zonelistfile: "${join(dir, 'zone.list')}"
  cookie-secret-file: "${join(dir, 'cookiesecrets.txt')}"
  database: ""
  server-count: 1
  verbosity: 2
remote-control:
  control-enable: no
${zones.map(([name, file]) => `zone:\n  name: ${name}\n  zonefile: "${file}"\n`).join('')}`;
}
