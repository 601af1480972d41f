import { expect } from 'chai';
import { serve, SERVER_PROGRAMS, stop, type ServerProgram } from '../support/cli.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { corpusDifference, dossiersAnswers, recordCorpus, requestLogs, type Recorded } from '../support/wire-corpus.js';

const TOKEN = 'examples-admin-token-0123456789abcdefghijkl';

/** The adapter each example app mounts Dossier with. */
const ADAPTER_OF: Record<string, 'koa' | 'express' | 'fastify' | 'fetch'> = {
  'examples/serve-koa': 'koa',
  'examples/serve-express': 'express',
  'examples/serve-fastify': 'fastify',
  'examples/serve-hono': 'fetch',
};

/**
 * The example apps (examples/serve-*.ts), each started from outside as `node dist/examples/serve-<name>.js`
 * and configured from the environment as `dossier serve` is, answer the whole contract as `dossier serve`
 * answers it: a corpus of raw requests over every route, the panel and its API, SSE and NDJSON included,
 * and the same request log lines on standard error. Their graceful stop and keep-alive are proven with
 * `dossier serve`'s own tests (graceful-stop, keep-alive), run on each of them.
 */
describe('the example apps serve all of Dossier as `dossier serve` does', function () {
  this.timeout(120_000);
  let dns: TestDnsServer;
  let env: NodeJS.ProcessEnv;
  let reference: Recorded;

  /** The corpus through `program`, and its request log lines. */
  async function record(program: ServerProgram, check?: (url: string) => Promise<void>): Promise<Recorded> {
    const served = await serve(env, undefined, program);
    try {
      await check?.(served.url);
      const entries = await recordCorpus({ url: served.url, adminToken: TOKEN, domain: 'example.test' });
      await stop(served.child);
      expect(served.child.exitCode, served.err()).to.equal(0);
      return { entries, logs: requestLogs(served.err().split('\n')) };
    } finally {
      await stop(served.child);
    }
  }

  before(async () => {
    dns = await startDnsServer({
      'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] },
      'nx.example.test': { RCODE: 3 },
    });
    env = {
      DOSSIER_STORE: 'memory://',
      DOSSIER_CACHE: 'memory://',
      DOSSIER_DNS_SERVERS: dns.address,
      DOSSIER_WORKERS: 'false',
      DOSSIER_ADMIN_TOKEN: TOKEN,
    };
    reference = await record(SERVER_PROGRAMS[0]!);
  });
  after(() => dns?.close());

  for (const program of SERVER_PROGRAMS.slice(1)) {
    it(`${program.name}: its own GET /health, and every other request answered and logged as dossier serve does`, async () => {
      const adapter = ADAPTER_OF[program.name]!;
      const got = dossiersAnswers(
        await record(program, async (url) => {
          const health = await fetch(`${url}/health`);
          expect(health.status).to.equal(200);
          expect(await health.json()).to.deep.equal({ ok: true });
        }),
        adapter,
      );
      const want = dossiersAnswers(reference, adapter);
      const difference = corpusDifference(want.entries, got.entries);
      expect(difference, difference).to.equal(undefined);
      expect(got.logs).to.deep.equal(want.logs);
    });
  }
});
