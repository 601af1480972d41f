import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dossier, dossierJson, serve, stop } from '../support/cli.js';
import { EXIT } from '../../adapters/cli/run.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { KEY_FIELDS } from '../support/key-fields.js';

type Json = Record<string, unknown>;

describe('the dossier command: key lifecycle', function () {
  // Each test starts a server process, and runs the command a dozen times.
  this.timeout(30_000);
  let dir: string;
  let dns: TestDnsServer;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-cli-keys-'));
    dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    env = { DOSSIER_STORE: `sqlite://${join(dir, 'store.sqlite')}`, DOSSIER_DNS_SERVERS: dns.address };
  });
  afterEach(async () => {
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const json = (args: string[]): Promise<Json> => dossierJson(args, env);

  it('creates a key with --expires (a date or an instant), and lists its status and expiry', async () => {
    const dated = await json(['keys', 'create', '--name', 'dated', '--expires', '2099-01-31']);
    const instant = await json(['keys', 'create', '--name', 'instant', '--expires', '2099-01-31T12:30:00+02:00']);
    const listed = (await json(['keys', 'list'])).data as Json[];
    expect(listed.map((key) => [key.id, key.expires_at, key.status])).to.deep.equal([
      [instant.id, '2099-01-31T10:30:00.000Z', 'active'],
      [dated.id, '2099-01-31T00:00:00.000Z', 'active'],
    ]);
    expect(Object.keys(listed[0]!)).to.deep.equal(KEY_FIELDS);
    const people = await dossier(['keys', 'list'], env);
    expect(people.stdout).to.match(
      new RegExp(`${String(dated.id)}\\s+dated\\s+.*\\sactive\\s+expires=2099-01-31T00:00:00.000Z\\s+used_today=0\\n`),
    );

    const human = await dossier(['keys', 'create', '--name', 'told', '--expires', '2099-02-01'], env);
    expect(human.stdout).to.include('expires 2099-02-01T00:00:00.000Z');
    for (const bad of ['2020-01-01', 'tomorrow', '2099-02-30', '2099-01-31T12:30:00']) {
      const refused = await dossier(['keys', 'create', '--name', 'bad', '--expires', bad], env);
      expect(refused.code, bad).to.equal(2);
      expect(refused.stderr, bad).to.match(/expiry/);
    }
    // Not reachable from a shell (an argument cannot hold U+0000), but said as plainly where it can be.
    const nul = await dossier(['keys', 'create', '--name', 'a\u0000b'], env);
    expect([nul.code, nul.stderr]).to.deep.equal([2, 'dossier: The name must not contain the NUL character (U+0000).\n']);
    expect((await json(['keys', 'list'])).meta).to.deep.equal({ total: 3, next_cursor: null });

    // A page at a time, newest first, searched: as the admin API pages.
    const first = await json(['keys', 'list', '--limit', '2']);
    expect((first.data as Json[]).map((key) => key.name)).to.deep.equal(['told', 'instant']);
    const cursor = String((first.meta as Json).next_cursor);
    const rest = await json(['keys', 'list', '--limit', '2', '--cursor', cursor]);
    expect((rest.data as Json[]).map((key) => key.name)).to.deep.equal(['dated']);
    expect((await dossier(['keys', 'list', '--limit', '2'], env)).stdout).to.include(
      `2 of 3 keys; the next page: --cursor ${cursor}`,
    );
    expect(((await json(['keys', 'list', '--search', 'INST'])).data as Json[]).map((key) => key.id)).to.deep.equal([instant.id]);
    expect((await dossier(['keys', 'list', '--search', 'nothing-like-it'], env)).stdout).to.equal('No key matches.\n');
    const badLimit = await dossier(['keys', 'list', '--limit', '0'], env);
    expect(badLimit.code).to.equal(2);
    expect(badLimit.stderr).to.include('--limit');
  });

  it('updates name, scopes, limit and expiry, at once on a running server', async () => {
    const created = await json(['keys', 'create', '--name', 'before', '--daily-limit', '5']);
    const { url, child } = await serve(env);
    try {
      const headers = { Authorization: `Bearer ${String(created.key)}` };
      const lookup = (): Promise<Response> => fetch(`${url}/api/dns?domain=example.test`, { headers });
      expect((await lookup()).headers.get('X-RateLimit-Limit')).to.equal('5');

      const updated = await json([
        'keys',
        'update',
        String(created.id),
        '--name',
        'after',
        '--daily-limit',
        '9',
        '--expires',
        '2099-12-31',
      ]);
      expect(updated).to.include({
        id: created.id,
        name: 'after',
        daily_limit: 9,
        expires_at: '2099-12-31T00:00:00.000Z',
        used_today: 1,
      });
      expect((await lookup()).headers.get('X-RateLimit-Limit')).to.equal('9');

      const reset = await dossier(
        ['keys', 'update', String(created.id), '--daily-limit', 'default', '--expires', 'never', '--scopes', 'documents'],
        env,
      );
      expect(reset.code).to.equal(0);
      expect(reset.stdout).to.include('name=after scopes=documents daily_limit=1000 expires=never active');
      expect((await lookup()).status).to.equal(403);

      for (const [args, pattern] of [
        [['--daily-limit', '-1'], /daily-limit/],
        [['--daily-limit', '0'], /daily limit/],
        [['--expires', '2001-01-01'], /expiry/],
        [['--name', 'x'.repeat(10_000)], /name/],
        [['--scopes', 'admin'], /scopes/],
        [[], /at least one/],
        [['--owner', 'someone'], /--owner does not apply/],
      ] as [string[], RegExp][]) {
        const refused = await dossier(['keys', 'update', String(created.id), ...args], env);
        expect(refused.code, args.join(' ')).to.equal(EXIT.usage);
        expect(refused.stderr, args.join(' ')).to.match(pattern);
      }
      const missing = await dossier(['keys', 'update', 'key_0000000000000000', '--name', 'ghost'], env);
      expect(missing.code).to.equal(EXIT.notFound);
      expect(missing.stderr).to.include('key_0000000000000000');
      const listed = ((await json(['keys', 'list'])).data as Json[])[0]!;
      expect(listed).to.include({ name: 'after', daily_limit: 1000, expires_at: null });
      expect(listed.scopes).to.deep.equal(['documents']);
    } finally {
      await stop(child);
    }
  });

  it('rolls a secret: shown once, the old one working only for --grace seconds', async () => {
    const created = await json(['keys', 'create', '--name', 'rolling']);
    const { url, child } = await serve(env);
    try {
      const lookup = (secret: unknown): Promise<Response> =>
        fetch(`${url}/api/dns?domain=example.test`, { headers: { Authorization: `Bearer ${String(secret)}` } });
      const graced = await json(['keys', 'roll', String(created.id), '--grace', '3600']);
      expect(graced).to.include({ id: created.id, name: 'rolling', status: 'active' });
      expect(graced.key).to.match(/^dsr_/).and.not.equal(created.key);
      expect((await lookup(created.key)).status).to.equal(200);
      expect((await lookup(graced.key)).status).to.equal(200);

      const human = await dossier(['keys', 'roll', String(created.id)], env);
      expect(human.code).to.equal(0);
      expect(human.stdout).to.include('The old secret no longer works.').and.include('This is the only time the key is shown');
      const fresh = /Key: (dsr_\S+)/.exec(human.stdout)?.[1];
      expect((await lookup(graced.key)).status).to.equal(401);
      expect((await lookup(fresh)).status).to.equal(200);
      // The grace of the first roll still runs for the first secret.
      expect((await lookup(created.key)).status).to.equal(200);

      for (const grace of ['-1', 'soon', '9999999999']) {
        const refused = await dossier(['keys', 'roll', String(created.id), '--grace', grace], env);
        expect(refused.code, grace).to.equal(2);
        expect(refused.stderr, grace).to.match(/grace/i);
      }
      expect((await dossier(['keys', 'roll'], env)).code).to.equal(EXIT.usage);
      expect((await dossier(['keys', 'roll', 'key_0000000000000000'], env)).code).to.equal(EXIT.notFound);
      expect((await lookup(fresh)).status).to.equal(200);
      expect((await dossier(['keys', 'list'], env)).stdout).to.not.include(String(fresh));
    } finally {
      await stop(child);
    }
  });

  it('says where the administration panel is when DOSSIER_ADMIN_TOKEN is set, and refuses a short one', async () => {
    const { url, out, child } = await serve({ ...env, DOSSIER_ADMIN_TOKEN: 'a'.repeat(40) });
    try {
      expect(out()).to.include(`Administration panel on ${url}/admin`);
    } finally {
      await stop(child);
    }
    const short = await dossier(['serve'], { ...env, PORT: '0', DOSSIER_ADMIN_TOKEN: 'too-short' });
    expect(short.code).to.equal(EXIT.config);
    expect(short.stderr).to.include('DOSSIER_ADMIN_TOKEN must be at least 32 characters');
    expect(short.stderr).to.not.include('too-short');
  });
});
