import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSelfSigned } from '../support/certificates.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { freePort } from '../support/free-port.js';
import { projectRoot } from '../support/paths.js';
import {
  LANGUAGES,
  makeApp,
  makeClone,
  packTarball,
  pages,
  readSnippets,
  runToEnd,
  sectionSnippets,
  shellScript,
  snippetFile,
  Started,
  waitUntilPrinted,
  waitUntilServing,
  withPorts,
  type Ran,
  type Snippet,
  type SnippetPorts,
} from '../support/snippets.js';
import { startTlsServer, type TestTlsPeer } from '../support/tls-server.js';

/** The most snippets that may be marked not run: the few that need the registry, Docker or the suite itself. */
const MOST_NOT_RUN = 6;

const runnable = (snippet: Snippet): boolean => (snippet.language === 'sh' || snippet.language === 'ts') && !snippet.notRun;

const failure = (snippet: Snippet, ran: Ran): string =>
  `${snippet.page}:${snippet.line} (${snippet.language}) ended with ${ran.status ?? ran.signal}:\n${ran.output}`;

/**
 * Every shell and TypeScript snippet of the README and docs/ runs as pasted (test/support/snippets.ts
 * says how the markdown marks a server, or one that is not run): the shell ones in a clone of the
 * repository, the TypeScript ones in an app that installed the packed tarball, after `tsc --strict`
 * against its types. The machine they run on has only loopback peers: its resolver (the one
 * `DOSSIER_DNS_SERVERS` would name, and the one Node's programs find in the system's place) is a test
 * DNS server (test/support/system-resolver.ts), `example.com` is 127.0.0.1 there and serves TLS on
 * `DOSSIER_SSL_PORT`, npm is offline (with a cache of its own), and curl fails on an HTTP error
 * (`--fail-with-body`, from a `.curlrc`), so a 4xx stops the snippet. Each page gets free ports in
 * place of the 3000 and 8080 it shows, and the resolver's in place of 5353.
 */
describe('the snippets of the README and docs/', function () {
  this.timeout(300_000);
  let work: string;
  let clone: string;
  let app: string;
  let dns: TestDnsServer;
  let tls: TestTlsPeer;
  let env: NodeJS.ProcessEnv;

  before(async function () {
    work = mkdtempSync(join(tmpdir(), 'dossier-snippets-'));
    dns = await startDnsServer({
      'example.com': {
        A: [{ address: '127.0.0.1' }],
        MX: [{ exchange: 'mail.example.com', priority: 10 }],
        NS: ['ns1.example.com'],
        TXT: [['v=spf1 -all']],
        SOA: {
          nsname: 'ns1.example.com',
          hostmaster: 'hostmaster.example.com',
          serial: 1,
          refresh: 3600,
          retry: 600,
          expire: 86400,
          minttl: 300,
        },
      },
      'mail.example.com': { A: [{ address: '127.0.0.1' }] },
      'hooks.example.net': { A: [{ address: '127.0.0.1' }] },
    });
    const certificate = await createSelfSigned({ subject: 'CN=example.com', dnsNames: ['example.com'] });
    tls = await startTlsServer({ key: certificate.keyPem, chain: [certificate.pem] });

    mkdirSync(join(work, 'curl'));
    writeFileSync(join(work, 'curl', '.curlrc'), 'fail-with-body\nshow-error\nmax-time = 60\n');
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('DOSSIER_') && !name.startsWith('npm_')),
    );
    env = {
      ...inherited,
      HOST: '127.0.0.1',
      DOSSIER_ADMIN_TOKEN: 'snippets-admin-token-0123456789abcdefghij',
      DOSSIER_ALLOW_PRIVATE_TARGETS: 'true',
      DOSSIER_SSL_PORT: String(tls.port),
      DOSSIER_LOG_LEVEL: 'warn',
      NODE_OPTIONS: `--import=${fileURLToPath(new URL('../support/system-resolver.js', import.meta.url))}`,
      SNIPPETS_RESOLVER: dns.address,
      CURL_HOME: join(work, 'curl'),
      npm_config_offline: 'true',
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };

    clone = join(work, 'dossier');
    makeClone(clone);
    app = join(work, 'your-app');
    makeApp(app, packTarball(work, env));
    for (const page of pages()) {
      for (const snippet of readSnippets(page).snippets.filter((one) => one.language === 'ts' && !one.notRun)) {
        writeFileSync(join(app, 'snippets', snippetFile(snippet)), snippet.code);
      }
    }
    // The programs to run, emitted without the type check that a test of its own makes; a page puts its
    // ports in when it runs them.
    const emitted = spawnSync(process.execPath, [tsc(), '-p', app, '--noCheck'], { encoding: 'utf8' });
    if (emitted.status !== 0) throw new Error(`tsc: ${emitted.stdout}${emitted.stderr}`);
  });
  after(async () => {
    await dns?.close();
    await tls?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  /** The program of a TypeScript snippet, as tsc emitted it, with the page's ports: a file beside it. */
  function program(snippet: Snippet, ports: SnippetPorts): string {
    const emitted = join(app, 'build', snippetFile(snippet).replace(/\.ts$/, '.js'));
    const run = emitted.replace(/\.js$/, `.${ports[3000]}.js`);
    writeFileSync(run, withPorts(readFileSync(emitted, 'utf8'), ports));
    return run;
  }

  const tsc = (): string => join(projectRoot(), 'node_modules', 'typescript', 'bin', 'tsc');

  it('label every fence with its language, and say why each one not run is not', () => {
    const problems: string[] = [];
    const notRun: string[] = [];
    for (const page of pages()) {
      const { snippets, after } = readSnippets(page);
      if (after !== undefined) {
        try {
          if (sectionSnippets(after).filter(runnable).length === 0) problems.push(`${page}: ${after} has no snippet to run`);
        } catch (error) {
          problems.push(`${page}: ${(error as Error).message}`);
        }
      }
      for (const snippet of snippets) {
        const where = `${snippet.page}:${snippet.line}`;
        if (!(LANGUAGES as readonly string[]).includes(snippet.language))
          problems.push(`${where}: the fence names "${snippet.language}", not one of ${LANGUAGES.join(', ')}`);
        if (snippet.unknownMarker !== undefined) problems.push(`${where}: an unknown marker "${snippet.unknownMarker}"`);
        if (snippet.notRun !== undefined) {
          if (snippet.notRun.split(/\s+/).length < 3) problems.push(`${where}: "not run" without a reason`);
          notRun.push(`${where}: ${snippet.notRun}`);
        }
        if (snippet.language === 'json') {
          try {
            JSON.parse(snippet.code);
          } catch (error) {
            problems.push(`${where}: not JSON (${(error as Error).message})`);
          }
        }
      }
    }
    expect(problems).to.deep.equal([]);
    expect(notRun.length, notRun.join('\n')).to.be.at.most(MOST_NOT_RUN);
  });

  it('hold TypeScript that compiles under --strict against the types of the packed tarball (tsc --noEmit)', () => {
    const checked = spawnSync(process.execPath, [tsc(), '-p', app, '--noEmit'], { encoding: 'utf8' });
    expect(checked.status, `${checked.stdout}${checked.stderr}`).to.equal(0);
  });

  for (const page of pages()) {
    const { snippets, after } = readSnippets(page);
    if (!snippets.some(runnable)) continue;

    it(`run as pasted: ${page}${after === undefined ? '' : ` (after ${after})`}`, async () => {
      const state = join(work, `${page.replace(/\W/g, '-')}.state.sh`);
      writeFileSync(state, '');
      const servers = new Map<string, Started>();
      // Ports of this page's own (a port freed at the end of a page may go to another test meanwhile).
      const ports: SnippetPorts = { 3000: await freePort(), 5353: dns.port, 8080: await freePort() };
      const pageEnv = { ...env, PORT: String(ports[3000]) };
      try {
        for (const snippet of [...(after === undefined ? [] : sectionSnippets(after)), ...snippets].filter(runnable)) {
          const code = withPorts(snippet.code, ports);
          // Both in the page's terminal: a program sees the variables the page exported (WEBHOOK_SECRET).
          const [script, cwd] =
            snippet.language === 'sh' ? [code, clone] : [`node ${JSON.stringify(program(snippet, ports))}`, app];
          const [command, args] = ['bash', ['-c', shellScript(script, state)]];
          if (snippet.serves === undefined && snippet.readyWhenPrinted === undefined) {
            const ran = await runToEnd(command, args, { cwd, env: pageEnv });
            expect(ran.status, failure(snippet, ran)).to.equal(0);
            continue;
          }
          // A server takes the place of the one on its address, as it would on the reader's machine.
          const place =
            snippet.serves === undefined ? `${snippet.page}:${snippet.line}` : new URL(withPorts(snippet.serves, ports)).host;
          await servers.get(place)?.stop();
          const started = new Started(command, args, { cwd, env: pageEnv });
          servers.set(place, started);
          if (snippet.serves !== undefined) await waitUntilServing(started, withPorts(snippet.serves, ports));
          else {
            await waitUntilPrinted(started, snippet.readyWhenPrinted!);
            // "Runs until stopped": still there a while after it is ready (timers alone would not hold it).
            await new Promise((resolve) => setTimeout(resolve, 2000));
            expect(started.running, `${snippet.page}:${snippet.line} ended on its own:\n${started.output}`).to.equal(true);
          }
        }
        for (const [place, server] of servers) {
          expect(server.running, `${place} stopped on its own:\n${server.output}`).to.equal(true);
        }
      } finally {
        await Promise.all([...servers.values()].map((server) => server.stop()));
      }
    });
  }

  it('pack into a tarball holding LICENSE, README.md and every entry package.json names (npm pack --dry-run)', () => {
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: projectRoot(),
      env,
      encoding: 'utf8',
    });
    expect(packed.status, packed.stderr).to.equal(0);
    const files = new Set((JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path));
    const manifest = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      bin: Record<string, string>;
      exports: Record<string, Record<string, string>>;
    };
    const entries = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((conditions) => Object.values(conditions)),
    ].map((path) => path.replace(/^\.\//, ''));
    const missing = ['LICENSE', 'README.md', 'package.json', ...entries].filter((path) => !files.has(path));
    expect(missing).to.deep.equal([]);
  });
});
