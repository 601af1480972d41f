import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, dossier, dossierJson, serve, stop } from '../support/cli.js';
import { EXIT } from '../../adapters/cli/run.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

type Json = Record<string, unknown>;

describe('the dossier command: watches, serve and worker', function () {
  this.timeout(30_000);
  let dir: string;
  let dns: TestDnsServer;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-cli-watches-'));
    dns = await startDnsServer({ 'example.test': { A: [{ address: '192.0.2.1', ttl: 600 }] } });
    env = { DOSSIER_STORE: `sqlite://${join(dir, 'store.sqlite')}`, DOSSIER_DNS_SERVERS: dns.address };
  });
  afterEach(async () => {
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Creates a watch over HTTP and returns it. */
  async function createWatch(url: string, key: string): Promise<Json> {
    const response = await fetch(`${url}/api/watches`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'dns', domain: 'example.test', webhook_url: 'https://hooks.example.test/in' }),
    });
    expect(response.status).to.equal(201);
    return ((await response.json()) as { data: Json }).data;
  }

  /** Reads a watch over HTTP until `done` accepts it. */
  async function watchUntil(url: string, key: string, id: string, done: (watch: Json) => boolean): Promise<Json> {
    for (;;) {
      const watch = (
        (await (await fetch(`${url}/api/watches/${id}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
          data: Json;
        }
      ).data;
      if (done(watch)) return watch;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('serve checks watches by itself; with DOSSIER_WORKERS=false it leaves them to `dossier worker`', async () => {
    const created = await dossierJson(['keys', 'create', '--name', 'watcher'], env);
    const key = String(created.key);
    let served = await serve(env);
    try {
      const watch = await createWatch(served.url, key);
      await watchUntil(served.url, key, String(watch.id), (current) => current.last_checked_at !== null);
    } finally {
      await stop(served.child);
    }

    served = await serve({ ...env, DOSSIER_WORKERS: 'false' });
    const worker = spawn(process.execPath, [MAIN, 'worker'], { env: { PATH: process.env.PATH, ...env } });
    let workerOut = '';
    worker.stdout.on('data', (chunk: Buffer) => (workerOut += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
    try {
      const watch = await createWatch(served.url, key);
      expect(watch.last_checked_at).to.equal(null);
      await watchUntil(served.url, key, String(watch.id), (current) => current.last_checked_at !== null);
      expect(workerOut).to.match(/^Dossier worker running \(store sqlite:/);
    } finally {
      worker.kill('SIGTERM');
      await stop(served.child);
    }
    expect(await exited).to.equal(0);

    const listed = (await dossierJson(['watches', 'list', '--key', String(created.id)], env)) as unknown as Json[];
    expect(listed).to.have.length(2);
    expect(Object.keys(listed[0]!)).to.deep.equal([
      'id',
      'type',
      'domain',
      'webhook_url',
      'interval_seconds',
      'created_at',
      'last_checked_at',
      'next_check_at',
      'last_error',
    ]);
    const people = await dossier(['watches', 'list', '--key', String(created.id)], env);
    expect(people.stdout.trim().split('\n')).to.have.length(2);
    expect(people.stdout).to.match(new RegExp(`^${String(listed[0]!.id)} dns example.test every=900s last_check=\\S+Z\\n`));
  });

  it("removes a watch with `watches remove`, a revoked key's with `keys revoke`; a worker checks no watch of an expired key", async () => {
    const kept = await dossierJson(['keys', 'create', '--name', 'kept', '--owner', 'acct'], env);
    const revoked = await dossierJson(['keys', 'create', '--name', 'revoked', '--owner', 'acct'], env);
    const served = await serve({ ...env, DOSSIER_WORKERS: 'false' });
    try {
      // A key that expires in a few seconds, and its watch made at once.
      const expiring = await dossierJson(
        ['keys', 'create', '--name', 'expiring', '--owner', 'acct', '--expires', new Date(Date.now() + 5000).toISOString()],
        env,
      );
      const paused = await createWatch(served.url, String(expiring.key));
      const [removed, active, gone] = [
        await createWatch(served.url, String(kept.key)),
        await createWatch(served.url, String(kept.key)),
        await createWatch(served.url, String(revoked.key)),
      ];
      const removal = await dossier(['watches', 'remove', String(removed.id)], env);
      expect(removal).to.include({ code: 0, stdout: `Removed watch ${String(removed.id)}.\n` });
      expect((await dossier(['watches', 'remove', String(removed.id)], env)).code).to.equal(EXIT.notFound);
      expect((await dossier(['watches', 'remove'], env)).code).to.equal(EXIT.usage);
      expect((await dossier(['keys', 'revoke', String(revoked.id)], env)).code).to.equal(0);
      const ids = async (key: Json): Promise<unknown[]> =>
        ((await dossierJson(['watches', 'list', '--key', String(key.id)], env)) as unknown as Json[]).map((watch) => watch.id);
      expect(await ids(kept)).to.deep.equal([active.id]);
      expect(await ids(revoked)).to.deep.equal([]);
      expect(await ids(expiring)).to.deep.equal([paused.id]);
      const status = async (): Promise<unknown> =>
        ((await dossierJson(['keys', 'list'], env)).data as Json[]).find((key) => key.id === expiring.id)?.status;
      while ((await status()) !== 'expired') await new Promise((resolve) => setTimeout(resolve, 100));

      // A worker checks the watch of the working key, and not the paused one, due at the same moment.
      const worker = spawn(process.execPath, [MAIN, 'worker'], { env: { PATH: process.env.PATH, ...env } });
      try {
        await watchUntil(served.url, String(kept.key), String(active.id), (current) => current.last_checked_at !== null);
        const unchecked = await watchUntil(served.url, String(kept.key), String(paused.id), () => true);
        expect(unchecked.last_checked_at).to.equal(null);
        expect(
          (
            await fetch(`${served.url}/api/watches/${String(gone.id)}`, {
              headers: { Authorization: `Bearer ${String(kept.key)}` },
            })
          ).status,
        ).to.equal(404);
      } finally {
        worker.kill('SIGTERM');
        await new Promise((resolve) => worker.once('exit', resolve));
      }
    } finally {
      await stop(served.child);
    }
  });

  it('refuses `watches list` without --key (usage) or with an unknown key (not found)', async () => {
    expect((await dossier(['watches', 'list'], env)).code).to.equal(EXIT.usage);
    const unknown = await dossier(['watches', 'list', '--key', 'key_0000000000000000'], env);
    expect(unknown.code).to.equal(EXIT.notFound);
    const other = await dossierJson(['keys', 'create', '--name', 'none'], env);
    expect((await dossier(['watches', 'list', '--key', String(other.id)], env)).stdout).to.equal(
      `No watches for ${String(other.id)}.\n`,
    );
  });
});
