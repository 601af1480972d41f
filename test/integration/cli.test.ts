import { expect } from 'chai';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { KEY_FIELDS } from '../support/key-fields.js';
import { writeGeoipFixtures } from '../support/mmdb-writer.js';
import { dossier, dossierJson, dossierProcess, MAIN, serve, stop, type Run } from '../support/cli.js';
import { EXIT } from '../../adapters/cli/run.js';
import { projectRoot } from '../support/paths.js';
import { LISTEN_BACKLOG } from '../../adapters/cli/listen-backlog.js';

/**
 * The time of a test that starts real `dossier` processes: about 5 s alone here, and past mocha's 20 s
 * with other suites running beside it on two CPUs, where each process start takes several times as long.
 */
const PROCESS_TEST_MS = 60_000;

describe('the dossier command', function () {
  this.timeout(PROCESS_TEST_MS);
  let dir: string;
  let dns: TestDnsServer;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-cli-'));
    dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    env = { DOSSIER_STORE: `sqlite://${join(dir, 'store.sqlite')}`, DOSSIER_DNS_SERVERS: dns.address };
  });
  afterEach(async () => {
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a key that works at once on a running server, and revokes it at once (default SQLite store)', async () => {
    // No DOSSIER_STORE: both processes use the default ./data/dossier.sqlite of their working directory.
    const defaults = { DOSSIER_DNS_SERVERS: dns.address };
    const { url, child } = await serve(defaults, dir);
    try {
      expect(existsSync(join(dir, 'data', 'dossier.sqlite'))).to.equal(true);
      const created = await dossierProcess(
        ['keys', 'create', '--name', 'ci', '--owner', 'acct-7', '--daily-limit', '3', '--json'],
        defaults,
        dir,
      );
      expect(created.code).to.equal(0);
      const key = JSON.parse(created.stdout) as Record<string, unknown>;
      expect(Object.keys(key)).to.deep.equal(['id', 'key', 'owner', 'scopes', 'daily_limit']);
      expect(key).to.include({ owner: 'acct-7', daily_limit: 3 });
      expect(key.scopes).to.deep.equal(['lookup', 'documents']);
      expect(key.key).to.match(/^dsr_/);
      expect(key.id).to.match(/^key_/);

      const headers = { Authorization: `Bearer ${String(key.key)}` };
      const response = await fetch(`${url}/api/dns?domain=example.test`, { headers });
      expect(response.status).to.equal(200);
      expect(response.headers.get('X-RateLimit-Remaining')).to.equal('2');

      const listed = await dossierProcess(['keys', 'list', '--json'], defaults, dir);
      const [entry] = (JSON.parse(listed.stdout) as { data: Record<string, unknown>[] }).data;
      expect(Object.keys(entry!)).to.deep.equal(KEY_FIELDS);
      expect(entry).to.include({ id: key.id, name: 'ci', revoked_at: null });
      expect(listed.stdout).to.not.include(String(key.key));

      const revoked = await dossierProcess(['keys', 'revoke', String(key.id), '--json'], defaults, dir);
      expect(revoked.code).to.equal(0);
      const gone = JSON.parse(revoked.stdout) as Record<string, unknown>;
      expect(Object.keys(gone)).to.deep.equal(KEY_FIELDS);
      expect(gone.revoked_at).to.be.a('string');
      expect((await fetch(`${url}/api/dns?domain=example.test`, { headers })).status).to.equal(401);
    } finally {
      await stop(child);
    }
  });

  it('lists keys for people, showing revoked ones as revoked', async () => {
    const created = await dossierJson<{ id: string }>(['keys', 'create', '--name', 'old', '--scopes', 'lookup'], env);
    await dossier(['keys', 'revoke', created.id], env);
    const listed = await dossier(['keys', 'list'], env);
    expect(listed.stdout).to.match(
      new RegExp(`${created.id}\\s+old\\s+owner=\\S+\\s+scopes=lookup\\s+daily_limit=1000\\s+revoked `),
    );
  });

  it('stops with a message that names a bad variable', async () => {
    const run = await dossier(['keys', 'list'], { ...env, DOSSIER_DAILY_LIMIT: 'lots' });
    expect(run.code).to.equal(EXIT.config);
    expect(run.stderr).to.include('DOSSIER_DAILY_LIMIT');
    const served = await dossier(['serve'], { ...env, DOSSIER_STORE: 'ftp://nowhere' });
    expect(served.code).to.equal(EXIT.config);
    expect(served.stderr).to.include('DOSSIER_STORE');
    const unwritable = await dossier(['serve'], { ...env, DOSSIER_STORE: 'sqlite:///dev/null/dossier.sqlite' });
    expect(unwritable.code).to.equal(EXIT.config);
    expect(unwritable.stderr).to.include('DOSSIER_STORE');
    const token = await dossier(['serve'], {
      ...env,
      DOSSIER_ADMIN_TOKEN: 'too-short-to-guard-an-admin-api',
      DOSSIER_LOG_LEVEL: 'loud',
    });
    expect(token.code).to.equal(EXIT.config);
    expect(token.stderr).to.include('DOSSIER_ADMIN_TOKEN').and.include('DOSSIER_LOG_LEVEL');
    expect(token.stderr).to.not.include('too-short-to-guard-an-admin-api');
  });

  it('does not start with a GeoIP file that is not a database of its kind', async () => {
    const fixtures = await writeGeoipFixtures();
    try {
      const text = join(dir, 'not.mmdb');
      writeFileSync(text, 'root:x:0:0:root:/root:/bin/bash\n');
      for (const [variable, path] of [
        ['DOSSIER_GEOIP_CITY', text],
        ['DOSSIER_GEOIP_CITY', fixtures.asn],
        ['DOSSIER_GEOIP_ASN', fixtures.city],
      ] as const) {
        const run = await dossier(['serve'], { ...env, PORT: '0', [variable]: path });
        expect(run.code, `${variable}=${path}`).to.equal(EXIT.config);
        expect(run.stderr).to.include(variable);
        expect(run.stderr).to.not.include('    at ');
      }
      const { child } = await serve({ ...env, DOSSIER_GEOIP_CITY: fixtures.city, DOSSIER_GEOIP_ASN: fixtures.asn });
      await stop(child);
    } finally {
      rmSync(fixtures.dir, { recursive: true, force: true });
    }
  });

  it('stops with a message, not a hang, when the store accepts connections but never answers', async function () {
    // dossier.ready() waits 5 s for the store; closing a store that never answers must not wait for ever.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const { port } = silent.address() as AddressInfo;
      const run = await dossierProcess(['serve'], { ...env, PORT: '0', DOSSIER_STORE: `redis://127.0.0.1:${port}` });
      expect(run.code).to.equal(EXIT.unavailable);
      expect(run.stderr).to.include('did not answer');
      expect(run.stdout).to.not.include('listening');
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('serves the admin panel behind a reverse proxy with DOSSIER_TRUST_PROXY=true, and believes no forwarded header without it', async () => {
    const token = 'proxy-admin-token-0123456789abcdefghij';
    const site = 'https://dossier.example';
    /** A request as a TLS-ending proxy passes it on for the browser at `client`. */
    const viaProxy = (url: string, path: string, client: string, init: RequestInit = {}): Promise<Response> =>
      fetch(`${url}${path}`, {
        ...init,
        redirect: 'manual',
        headers: {
          'X-Forwarded-Proto': 'https',
          'X-Forwarded-Host': 'dossier.example',
          'X-Forwarded-For': client,
          Origin: site,
          ...(init.headers as Record<string, string>),
        },
      });
    const signIn = (url: string, client: string, secret: string): Promise<Response> =>
      viaProxy(url, '/admin/sign-in', client, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
        body: new URLSearchParams({ token: secret }).toString(),
      });

    const trusted = await serve({ ...env, DOSSIER_ADMIN_TOKEN: token, DOSSIER_TRUST_PROXY: 'true' });
    try {
      const signedIn = await signIn(trusted.url, '198.51.100.7', token);
      expect(signedIn.status).to.equal(303);
      const setCookie = signedIn.headers.get('Set-Cookie') ?? '';
      expect(setCookie).to.match(/; secure; httponly$/);
      const created = await viaProxy(trusted.url, '/admin/api/keys', '198.51.100.7', {
        method: 'POST',
        headers: { Cookie: setCookie.split(';')[0]!, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'behind-proxy' }),
      });
      expect(created.status).to.equal(201);
      // Five wrong tokens lock the address that sent them, not every client of the proxy. The address
      // is the one the proxy appended: what the client put before it (here another client's) is ignored.
      for (let i = 0; i < 5; i += 1) {
        expect((await signIn(trusted.url, `198.51.100.7, 203.0.113.9`, 'wrong')).status).to.equal(401);
      }
      expect((await signIn(trusted.url, '10.1.2.3, 203.0.113.9', token)).status).to.equal(429);
      expect((await signIn(trusted.url, '198.51.100.7', token)).status).to.equal(303);
    } finally {
      await stop(trusted.child);
    }

    const untrusted = await serve({ ...env, DOSSIER_ADMIN_TOKEN: token });
    try {
      // The browser's origin is not this server's own as it sees the request: refused.
      const refused = await signIn(untrusted.url, '198.51.100.7', token);
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('Set-Cookie')).to.equal(null);
    } finally {
      await stop(untrusted.child);
    }
    const bad = await dossier(['serve'], { ...env, DOSSIER_TRUST_PROXY: 'yes' });
    expect(bad.code).to.equal(EXIT.config);
    expect(bad.stderr).to.include('DOSSIER_TRUST_PROXY');
  });

  it('listens with room for a burst of connections larger than the default backlog of Node (511)', async function () {
    if (spawnSync('ss', ['-V']).status !== 0) this.skip();
    const { url, child } = await serve(env);
    try {
      // ss shows a listening socket's backlog as its Send-Q; the kernel caps it at net.core.somaxconn.
      const listing = spawnSync('ss', ['-ltnH', `sport = :${new URL(url).port}`], { encoding: 'utf8' }).stdout;
      const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
      expect(listing.trim().split(/\s+/)[2]).to.equal(String(Math.min(LISTEN_BACKLOG, somaxconn)));
    } finally {
      await stop(child);
    }
  });

  it('says which port is taken instead of crashing', async () => {
    const { url, child } = await serve(env);
    try {
      const port = new URL(url).port;
      const second = await dossier(['serve'], { ...env, PORT: port });
      expect(second.code).to.equal(EXIT.cannotListen);
      expect(second.stderr).to.include(`PORT=${port}`);
      expect(second.stderr).to.include('EADDRINUSE');
      expect(second.stderr).to.not.include('    at ');
    } finally {
      await stop(child);
    }
  });

  it('refuses bad usage with exit code 2', async () => {
    expect((await dossier([], env)).code).to.equal(EXIT.usage);
    expect((await dossier(['keys', 'create'], env)).stderr).to.include('--name is required');
    const scopes = await dossier(['keys', 'create', '--name', 'x', '--scopes', 'admin'], env);
    expect(scopes.code).to.equal(EXIT.usage);
    expect(scopes.stderr).to.include('scopes');
    expect((await dossier(['keys', 'revoke', 'key_nope'], env)).code).to.equal(EXIT.notFound);
    const stray = await dossier(['keys', 'create', '--name', 'x', 'stray'], env);
    expect(stray.code).to.equal(EXIT.usage);
    expect(stray.stderr).to.include('"stray"');
    expect((await dossier(['keys', 'revoke', 'key_a', 'key_b'], env)).code).to.equal(EXIT.usage);
  });

  it('names an unknown command or option, with the one meant when it is close, without the whole usage', async () => {
    const cases: [string[], string][] = [
      [['keys', 'lst'], 'Unknown command "keys lst"; did you mean "keys list"? Run dossier --help for usage.'],
      [['frobnicate'], 'Unknown command "frobnicate". Run dossier --help for usage.'],
      [['sevre'], 'Unknown command "sevre"; did you mean "serve"? Run dossier --help for usage.'],
      [
        ['keys'],
        '"keys" needs a command: keys create, keys list, keys update, keys roll, keys revoke. Run dossier --help for usage.',
      ],
      [['keys', 'create', '--nmae', 'x'], 'Unknown option --nmae for "dossier keys create"; did you mean --name?'],
      [['keys', 'list', '--frobnicate'], 'Unknown option --frobnicate for "dossier keys list".'],
      [['keys', 'create', '--name', 'x', '--grace', '3'], '--grace does not apply to "dossier keys create".'],
      [['keys', 'create', '--name'], '--name needs a value (--name VALUE).'],
      [['keys', 'list', '--json=yes'], '--json takes no value.'],
      [['keys', 'roll'], 'Give the id of the key to roll.'],
    ];
    for (const [args, message] of cases) {
      const run = await dossier(args, env);
      expect(run.code, args.join(' ')).to.equal(EXIT.usage);
      expect(run.stderr, args.join(' ')).to.equal(`dossier: ${message}\n`);
    }
  });

  it('says its version with --version', async () => {
    const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
    const run = await dossier(['--version'], env);
    expect(run).to.deep.equal({ code: EXIT.done, stdout: `dossier ${version}\n`, stderr: '' });
  });

  it('gives each kind of failure its own exit code, as docs/cli.md lists them', async () => {
    const revoked = await dossierJson<{ id: string }>(['keys', 'create', '--name', 'gone'], env);
    expect((await dossier(['keys', 'revoke', revoked.id], env)).code).to.equal(EXIT.done);
    const roll = await dossier(['keys', 'roll', revoked.id], env);
    expect(roll.code).to.equal(EXIT.refused);
    expect(roll.stderr).to.equal('dossier: The key is revoked, so it cannot be rolled; create a new key instead.\n');
    expect((await dossier(['keys', 'roll', 'key_0000000000000000'], env)).code).to.equal(EXIT.notFound);
    expect((await dossier(['keys', 'list'], { ...env, DOSSIER_STORE: 'redis://127.0.0.1:1' })).code).to.equal(EXIT.unavailable);

    const page = readFileSync(join(projectRoot(), 'docs', 'cli.md'), 'utf8');
    const table = [...page.matchAll(/^\| (\d+) \| `(\w+)` \|/gm)].map(([, code, name]) => [name, Number(code)]);
    expect(Object.fromEntries(table)).to.deep.equal(EXIT);
  });

  it("names every bad variable at once at start-up, the server's and the core's alike", async () => {
    const run = await dossier(['serve'], {
      ...env,
      PORT: 'eighty',
      DOSSIER_KEEP_ALIVE_TIMEOUT_MS: '0',
      DOSSIER_LOOKUP_TIMEOUT_MS: '-5',
      DOSSIER_DAILY_LIMIT: 'lots',
    });
    expect(run.code).to.equal(EXIT.config);
    expect(run.stderr).to.equal(
      'dossier: PORT must be a whole number, not "eighty"; ' +
        'DOSSIER_KEEP_ALIVE_TIMEOUT_MS must be a whole number from 1 to 3600000, not 0; ' +
        'DOSSIER_DAILY_LIMIT must be a whole number, not "lots"; ' +
        'DOSSIER_LOOKUP_TIMEOUT_MS must be a whole number from 1 to 600000, not -5\n',
    );
  });

  it('prints its usage on stdout for --help, and succeeds', async () => {
    for (const args of [['--help'], ['keys', 'create', '--help'], ['help']]) {
      const run = await dossier(args, env);
      expect(run.code, args.join(' ')).to.equal(0);
      expect(run.stdout).to.include('dossier keys create --name NAME');
    }
  });

  it('stops quietly when its reader stops early (dossier keys list | head -1)', async () => {
    for (let i = 0; i < 3; i += 1) await dossier(['keys', 'create', '--name', `k${i}`], env);
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [MAIN, 'keys', 'list'], { env: { PATH: process.env.PATH, ...env } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.destroy();
      child.once('exit', (code) => resolve({ code, stderr }));
    });
    expect(run.stderr).to.not.include('EPIPE');
    expect(run.code).to.equal(0);
  });
});

describe("the dossier command as package.json's bin", () => {
  let dir: string;

  /** Runs a program in the copy; resolves with its exit code and output, never rejects. */
  function run(file: string, args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(file, args, { cwd: dir, env: process.env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  /**
   * What `npm run build` leaves in the copy: the compiled package, written anew as tsc writes it (files
   * without an executable bit). Copying the build under test does that without compiling twice more.
   */
  function build(): void {
    for (const entry of ['lib', 'adapters'])
      cpSync(join(projectRoot(), 'dist', entry), join(dir, 'dist', entry), { recursive: true });
  }

  before(() => {
    // A copy of the package, so that cleaning its dist/ cannot pull the running tests from under mocha.
    const root = projectRoot();
    dir = mkdtempSync(join(tmpdir(), 'dossier-bin-'));
    for (const entry of ['bin', 'package.json', '.gitignore']) cpSync(join(root, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs from a build, says so once dist/ is cleaned, runs from the next build (written anew, as tsc does); npm pack keeps it executable', async function () {
    this.timeout(PROCESS_TEST_MS + 30_000);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    // npx runs the command through a link to the file that `bin` names, made once: so do we.
    mkdirSync(join(dir, '.bin'));
    const link = join(dir, '.bin', 'dossier');
    symlinkSync(join(dir, pkg.bin.dossier!), link);

    build();
    const first = await run(link, ['--help']);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.include('dossier keys create --name NAME');

    expect((await run('npm', ['run', 'clean'])).code, 'npm run clean').to.equal(0);
    const unbuilt = await run(link, ['--help']);
    expect(unbuilt.code).to.equal(1);
    expect(unbuilt.stderr).to.include('npm run build');

    build();
    const second = await run(link, ['--help']);
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stdout).to.include('dossier keys create --name NAME');

    const packed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts']);
    expect(packed.code, packed.stderr).to.equal(0);
    const [{ files }] = JSON.parse(packed.stdout) as [{ files: { path: string; mode: number }[] }];
    const bin = files.find((file) => file.path === pkg.bin.dossier!.replace(/^\.\//, ''));
    expect(bin, 'the bin file is in the package').to.not.equal(undefined);
    expect(bin!.mode & 0o111, 'the bin file is executable in the package').to.equal(0o111);
    // What the package's main, exports and bin need, although git ignores dist/; no sources, tests or data.
    const paths = files.map((file) => file.path);
    for (const needed of [
      'dist/adapters/cli/main.js',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/adapters/koa/index.js',
    ]) {
      expect(paths, needed).to.include(needed);
    }
    expect(paths, 'the data files the build copies, and the modules it makes of the panel').to.include.members([
      'dist/lib/lookup/net/special-ranges.json',
      'dist/adapters/http/admin/panel/admin.js.text.js',
      'dist/adapters/http/admin/panel/admin.css.text.js',
    ]);
    expect(
      paths.filter((path) => path.endsWith('.map')),
      'no source maps: they would point to TypeScript sources the package does not hold',
    ).to.deep.equal([]);
    expect(
      paths.filter((path) => !/^(bin|dist\/(lib|adapters))\/|^(package\.json|README\.md|LICENSE)$/.test(path)),
    ).to.deep.equal([]);
  });
});
