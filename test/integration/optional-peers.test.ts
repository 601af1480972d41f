import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Run } from '../support/cli.js';
import { projectRoot } from '../support/paths.js';
import { EXIT } from '../../adapters/cli/run.js';

// What an application that installed the library alone, or the library and only some of its optional
// peers, gets: the compiled package beside a node_modules that has every installed package but those.

/** The compiled package in a folder of its own, whose node_modules lacks `missing`. */
function packageWithout(missing: string[]): string {
  const root = projectRoot();
  const dir = mkdtempSync(join(tmpdir(), 'dossier-peers-'));
  for (const entry of ['dist/lib', 'dist/adapters', 'package.json']) {
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  }
  const modules = join(root, 'node_modules');
  for (const name of readdirSync(modules)) {
    const scoped = name.startsWith('@') ? readdirSync(join(modules, name)).map((member) => `${name}/${member}`) : [name];
    for (const pkg of scoped.filter((entry) => !missing.includes(entry))) {
      mkdirSync(dirname(join(dir, 'node_modules', pkg)), { recursive: true });
      symlinkSync(join(modules, pkg), join(dir, 'node_modules', pkg));
    }
  }
  return dir;
}

/** Runs node in `dir` with `env` (and a free port, should it serve). */
function node(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    const all = { PATH: process.env.PATH, DOSSIER_STORE: 'memory://', HOST: '127.0.0.1', PORT: '0', ...env };
    execFile(process.execPath, args, { cwd: dir, env: all }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** `dossier worker` in `dir` on a memory:// store, stopped with SIGTERM once it says it runs. */
function worker(dir: string): Promise<Run> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH, DOSSIER_STORE: 'memory://' };
    const child = spawn(process.execPath, ['dist/adapters/cli/main.js', 'worker'], { cwd: dir, env });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Dossier worker running')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const PINO_LINE = 'worker needs pino for its log, and pino is not installed: run npm install pino';

/** The library, embedded with its default store: a key made and read back. */
async function expectLibraryWorks(dir: string): Promise<void> {
  const library = await node(dir, [
    '--input-type=module',
    '-e',
    `const { createDossier } = await import('./dist/lib/index.js');
     const dossier = createDossier({ store: 'sqlite://./data/embedded.sqlite' });
     const { key } = await dossier.keys.create({ name: 'embedded' });
     console.log((await dossier.keys.list()).map((k) => k.name).join());
     await dossier.close();`,
  ]);
  expect(library.stderr).to.equal('');
  expect(library.stdout.trim()).to.equal('embedded');
  expect(library.code).to.equal(0);
}

/** A one-line failure of the command (a package to install is a configuration to mend), with no stack trace. */
function expectStopsWith(run: Run, text: string): void {
  expect(run.code, run.stdout).to.equal(EXIT.config);
  expect(run.stderr).to.include(text);
  expect(run.stderr).to.not.include('    at ');
}

/** Proves the packages are really absent here (in one process), so that the checks beside it are not vacuous. */
async function expectMissing(dir: string, names: string[]): Promise<void> {
  const script = `for (const name of ${JSON.stringify(names)}) await import(name).then(() => console.log(name), () => {});`;
  const load = await node(dir, ['--input-type=module', '-e', script]);
  expect(load.stderr).to.equal('');
  expect(load.stdout, 'the packages that are still found').to.equal('');
}

const KOA_LINE = 'npm install koa swagger-ui-dist prom-client pino';

describe('the package without any optional peer (npm install dossier alone)', function () {
  this.timeout(30_000);
  const PEERS = ['koa', '@koa/router', 'swagger-ui-dist', 'prom-client', 'pino', '@keyv/redis', 'pg', 'mysql2', 'bullmq'];
  let dir: string;
  before(() => (dir = packageWithout(PEERS)));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the library and the keys commands on SQLite; serve says what to install', async () => {
    await expectMissing(dir, PEERS);
    await expectLibraryWorks(dir);
    const keys = await node(dir, ['dist/adapters/cli/main.js', 'keys', 'list']);
    expect(keys.code, keys.stderr).to.equal(0);
    expect(keys.stdout).to.include('No keys yet');
    expectStopsWith(await node(dir, ['dist/adapters/cli/main.js', 'serve']), KOA_LINE);
    expectStopsWith(await worker(dir), PINO_LINE);
  });
});

for (const peer of ['koa', 'swagger-ui-dist', 'prom-client', 'pino']) {
  describe(`the package without the Koa adapter's peer ${peer}`, function () {
    this.timeout(30_000);
    let dir: string;
    before(() => (dir = packageWithout([peer])));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it(`serve names ${peer} and the line to run`, async () => {
      await expectMissing(dir, [peer]);
      const served = await node(dir, ['dist/adapters/cli/main.js', 'serve']);
      expectStopsWith(served, `${peer} is not installed: run ${KOA_LINE}`);
    });

    if (peer === 'pino') {
      it('worker names pino and the line to run', async () => expectStopsWith(await worker(dir), PINO_LINE));
    } else {
      it(`worker runs without ${peer}: it needs pino alone`, async () => {
        const run = await worker(dir);
        expect(run.stdout).to.match(/^Dossier worker running/);
        expect(run.code, run.stderr).to.equal(0);
      });
    }
  });
}

for (const { peer, scheme, url, use } of [
  { peer: '@keyv/redis', scheme: 'redis', url: 'redis://127.0.0.1:9/0', use: 'A redis:// store' },
  { peer: 'pg', scheme: 'postgres', url: 'postgres://nobody@127.0.0.1:9/none', use: 'A postgres:// store' },
  { peer: 'mysql2', scheme: 'mysql', url: 'mysql://nobody@127.0.0.1:9/none', use: 'A mysql:// or mariadb:// store' },
  { peer: 'mysql2', scheme: 'mariadb', url: 'mariadb://nobody@127.0.0.1:9/none', use: 'A mysql:// or mariadb:// store' },
]) {
  describe(`the package without the ${scheme} driver ${peer}`, function () {
    this.timeout(30_000);
    let dir: string;
    before(() => (dir = packageWithout([peer])));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it(`still gives the library; a ${scheme}:// store or cache stops with the line to run`, async () => {
      await expectMissing(dir, [peer]);
      await expectLibraryWorks(dir);
      const line = `${use} needs ${peer}, which is not installed: run npm install ${peer}`;
      expectStopsWith(await node(dir, ['dist/adapters/cli/main.js', 'keys', 'list'], { DOSSIER_STORE: url }), line);
      expectStopsWith(await node(dir, ['dist/adapters/cli/main.js', 'keys', 'list'], { DOSSIER_CACHE: url }), line);
      const embedded = await node(dir, [
        '--input-type=module',
        '-e',
        `const { createDossier } = await import('./dist/lib/index.js');
         try { createDossier({ store: '${url}' }); } catch (error) { console.log(error.code, error.message); }`,
      ]);
      expect(embedded.stdout.trim()).to.equal(`ERR_CONFIG_INVALID ${line}`);
    });
  });
}

describe('the package without the job engine bullmq', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => (dir = packageWithout(['bullmq'])));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('watches on SQLite; watches on a redis:// or postgres:// store stop with the line to run', async () => {
    await expectMissing(dir, ['bullmq']);
    const run = await node(dir, [
      '--input-type=module',
      '-e',
      `const { createDossier } = await import('./dist/lib/index.js');
       const local = createDossier({ store: 'sqlite://./data/watches.sqlite', workers: false });
       const { watch } = await local.watches.create({ type: 'dns', domain: 'example.com' });
       console.log(watch.type, watch.domain);
       await local.close();
       for (const store of ['redis://127.0.0.1:9/0', 'postgres://nobody@127.0.0.1:9/none']) {
         const shared = createDossier({ store });
         try { shared.watches; } catch (error) { console.log(error.code, error.message); }
         await shared.close();
       }`,
    ]);
    expect(run.stderr).to.equal('');
    const line = 'Watches on a redis:// or postgres:// store needs bullmq, which is not installed: run npm install bullmq';
    expect(run.stdout.trim().split('\n')).to.deep.equal([
      'dns example.com',
      `ERR_CONFIG_INVALID ${line}`,
      `ERR_CONFIG_INVALID ${line}`,
    ]);
  });

  it('serve on a Redis store stops with the line to run, with or without workers', async function () {
    const redis = process.env.DOSSIER_TEST_REDIS;
    if (!redis) this.skip();
    const line = 'Watches on a redis:// or postgres:// store needs bullmq, which is not installed: run npm install bullmq';
    for (const workers of ['true', 'false']) {
      const served = await node(dir, ['dist/adapters/cli/main.js', 'serve'], { DOSSIER_STORE: redis, DOSSIER_WORKERS: workers });
      expectStopsWith(served, line);
    }
  });
});

describe('an app that mounts Dossier with Express, without Koa (npm install dossier express swagger-ui-dist prom-client)', function () {
  this.timeout(30_000);
  const ABSENT = ['koa', '@koa/router', 'pino', 'fastify', 'hono', '@hono/node-server'];
  let dir: string;
  before(() => (dir = packageWithout(ABSENT)));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the contract, /metrics included, through dossier/express', async () => {
    await expectMissing(dir, ABSENT);
    const served = await node(dir, [
      '--input-type=module',
      '-e',
      `const { default: express } = await import('express');
       const { createDossier } = await import('./dist/lib/index.js');
       const { createDossierRouter } = await import('./dist/adapters/express/index.js');
       const dossier = createDossier({ store: 'memory://', adminToken: '${'a'.repeat(32)}' });
       const app = express();
       app.use(createDossierRouter(dossier));
       const server = app.listen(0, '127.0.0.1');
       await new Promise((resolve) => server.once('listening', resolve));
       const url = 'http://127.0.0.1:' + server.address().port;
       const health = await fetch(url + '/healthz');
       const metrics = await fetch(url + '/metrics', { headers: { Authorization: 'Bearer ${'a'.repeat(32)}' } });
       console.log(health.status, JSON.stringify(await health.json()), metrics.status);
       server.close();
       await dossier.close();`,
    ]);
    // Nothing on standard error but the default logger's line a request (no warning, no error).
    const logged = served.stderr.split('\n').filter(Boolean);
    expect(
      logged.map((line) => (JSON.parse(line) as { msg: string; route: string }).route),
      served.stderr,
    ).to.deep.equal(['/healthz', '/metrics']);
    expect(served.stdout.trim()).to.equal('200 {"status":"ok"} 200');
  });
});

/** Makes each entry's mount in `dir` and prints what it threw: `code message`. */
async function mountEach(dir: string, adminToken: string | undefined): Promise<string[]> {
  const options = JSON.stringify({ store: 'memory://', ...(adminToken ? { adminToken } : {}) });
  const run = await node(dir, [
    '--input-type=module',
    '-e',
    `const { createDossier } = await import('./dist/lib/index.js');
     const dossier = createDossier(${options});
     const mounts = {
       koa: async () => (await import('./dist/adapters/koa/index.js')).createDossierRouter(dossier),
       express: async () => (await import('./dist/adapters/express/index.js')).createDossierRouter(dossier),
       fastify: async () => {
         const { default: Fastify } = await import('fastify');
         await Fastify().register((await import('./dist/adapters/fastify/index.js')).dossierPlugin, { dossier }).ready();
       },
       fetch: async () => (await import('./dist/adapters/fetch/index.js')).createFetchHandler(dossier),
     };
     for (const [name, make] of Object.entries(mounts)) {
       try { await make(); console.log(name, 'mounted'); } catch (error) { console.log(name, error.code, error.message); }
     }
     await dossier.close();`,
  ]);
  expect(run.stderr).to.equal('');
  return run.stdout.trim().split('\n');
}

for (const { peer, adminToken } of [
  { peer: 'swagger-ui-dist', adminToken: undefined },
  { peer: 'prom-client', adminToken: 'b'.repeat(32) },
]) {
  describe(`the HTTP adapters without their peer ${peer}`, function () {
    this.timeout(30_000);
    let dir: string;
    before(() => (dir = packageWithout([peer])));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it(`stop each mount with one line that names ${peer} and what to run`, async () => {
      await expectMissing(dir, [peer]);
      const line = `ERR_CONFIG_INVALID Dossier's HTTP adapters need ${peer}, which is not installed: run npm install swagger-ui-dist prom-client`;
      expect(await mountEach(dir, adminToken)).to.deep.equal(
        ['koa', 'express', 'fastify', 'fetch'].map((name) => `${name} ${line}`),
      );
    });
  });
}

describe('the HTTP adapters without prom-client and without an admin token', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => (dir = packageWithout(['prom-client'])));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('mount: metrics are off, and prom-client is not needed', async () => {
    expect(await mountEach(dir, undefined)).to.deep.equal(
      ['koa', 'express', 'fastify', 'fetch'].map((name) => `${name} mounted`),
    );
  });
});

describe('the package without the MCP SDK @modelcontextprotocol/server', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = packageWithout(['@modelcontextprotocol/server'])));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the rest, POST /mcp answers 501 naming the package, and dossier mcp stops with the line to run', async () => {
    const mounted = await node(dir, [
      '--input-type=module',
      '-e',
      `const { createDossier } = await import('./dist/lib/index.js');
       const { createHttpHandler } = await import('./dist/adapters/http/index.js');
       const dossier = createDossier({ store: 'memory://', logLevel: 'silent' }); // no log line: stderr stays empty
       const { secret } = await dossier.keys.create({ name: 'agent' });
       const headers = { authorization: 'Bearer ' + secret, 'content-type': 'application/json', accept: 'application/json' };
       const request = (method, target, body) => ({
         method, target, prefix: '', header: (name) => headers[name], encrypted: false, remoteAddress: '127.0.0.1',
         body: body === undefined ? null : (async function* () { yield Buffer.from(body); })(),
         signal: new AbortController().signal,
       });
       const http = createHttpHandler(dossier);
       const mcp = await http.handle(request('POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"ping"}'));
       const templates = await http.handle(request('GET', '/api/v1/templates'));
       console.log(JSON.stringify({ mcp: mcp.status, body: JSON.parse(mcp.body), templates: templates.status }));
       await dossier.close();`,
    ]);
    expect(mounted.stderr).to.equal('');
    expect(JSON.parse(mounted.stdout)).to.deep.equal({
      mcp: 501,
      body: {
        status: 'error',
        code: 'not_implemented',
        message: 'This server was built without MCP: run npm install @modelcontextprotocol/server',
      },
      templates: 200,
    });
    expectStopsWith(
      await node(dir, ['dist/adapters/cli/main.js', 'mcp'], { DOSSIER_KEY: 'dsk_anything' }),
      'mcp needs the MCP SDK and the HTTP contract, and @modelcontextprotocol/server is not installed: run npm install @modelcontextprotocol/server swagger-ui-dist prom-client pino',
    );
  });
});
