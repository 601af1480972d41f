import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { projectRoot } from '../support/paths.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';

// What a user of the HTTP API does with a generator: openapi-typescript writes the types of the live
// server's /openapi.json, and a small client on openapi-fetch uses them. It must compile under
// `--strict` with no cast (the JSON create typed as the document it answers, a document id a number),
// refuse what the API refuses (the `@ts-expect-error` lines fail the compile when they type-check),
// and work against a live server: lookups, documents and watches, every answer as its type says.

const exec = promisify(execFile);
const ROOT = projectRoot();
const TSC = join(ROOT, 'node_modules/.bin/tsc');
const COMPILER_FLAGS = [
  '--strict',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--target',
  'es2022',
  '--skipLibCheck',
];

const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Document = components['schemas']['Document'];
type Watch = components['schemas']['Watch'];
type DnsAnswer = components['schemas']['DnsAnswer'];

const client = createClient<paths>({
  baseUrl: process.env.DOSSIER_URL,
  headers: { Authorization: \`Bearer \${process.env.DOSSIER_KEY}\` },
});

/** The body of an answer that must have succeeded. */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(\`\${answer.response.status}: \${JSON.stringify(answer.error)}\`);
  return answer.data;
}

const dns: DnsAnswer = ok(await client.GET('/api/dns', { params: { query: { domain: 'example.test' } } }));

const created: Document = ok(
  await client.POST('/api/v1/documents', { body: { name: 'From a generated client', prompt: 'typed', template_id: 6 } }),
).data;
const id: number = created.id;
const read: Document = ok(await client.GET('/api/v1/documents/{id}', { params: { path: { id } } })).data;
const changed: Document = ok(
  await client.PATCH('/api/v1/documents/{id}', { params: { path: { id } }, body: { favorite: true, name: 'Renamed' } }),
).data;
const page = ok(await client.GET('/api/v1/documents', { params: { query: { template_id: 6, per_page: 25, favorite: '1' } } }));
const deleted = ok(await client.DELETE('/api/v1/documents/{id}', { params: { path: { id } } }));
const { data: stream } = await client.POST('/api/v1/documents', {
  body: { name: 'Streamed', prompt: 'typed' },
  headers: { Accept: 'text/event-stream' },
  parseAs: 'stream',
});
const events = await new Response(stream).text();
const missing = await client.GET('/api/v1/documents/{id}', { params: { path: { id } } });
const notFound: string | undefined = missing.error?.message;

const watch: Watch = ok(
  await client.POST('/api/watches', { body: { type: 'dns', domain: 'example.test', webhook_url: process.env.DOSSIER_HOOK ?? '' } }),
).data;
const listed: Watch[] = ok(await client.GET('/api/watches')).data;
const removed = await client.DELETE('/api/watches/{id}', { params: { path: { id: watch.id } } });
const left: Watch[] = ok(await client.GET('/api/watches')).data;

/** Never called: what the generated types refuse. */
export function refused(): void {
  // @ts-expect-error a document id is a number
  void client.GET('/api/v1/documents/{id}', { params: { path: { id: 'one' } } });
  // @ts-expect-error a document needs a prompt
  void client.POST('/api/v1/documents', { body: { name: 'n' } });
  // @ts-expect-error creativity is one of 0, 0.25, 0.5, 0.75 and 1
  void client.POST('/api/v1/documents', { body: { name: 'n', prompt: 'p', creativity: 0.3 } });
  // @ts-expect-error a page holds 10, 25, 50 or 100 documents
  void client.GET('/api/v1/documents', { params: { query: { per_page: 5 } } });
  // @ts-expect-error a watch looks at ssl, whois or dns
  void client.POST('/api/watches', { body: { type: 'http', domain: 'example.test', webhook_url: 'https://x.test/' } });
}

console.log(
  JSON.stringify({
    addresses: dns.data.A.map((record) => record.address),
    template: created.template.id,
    read: read.name,
    changed: { name: changed.name, favorite: changed.favorite },
    listed: page.data.map((document) => document.id),
    total: page.meta.total,
    deleted: deleted.deleted,
    streamed: /^event: delta\\n/.test(events) && /event: document\\ndata: \\{"id":2,"name":"Streamed"/.test(events),
    deletedId: deleted.id === id,
    notFound,
    missingStatus: missing.response.status,
    watch: { type: watch.type, domain: watch.domain, interval: watch.interval_seconds },
    listedWatches: listed.map((one) => one.id === watch.id),
    removedStatus: removed.response.status,
    left: left.length,
  }),
);
`;

describe('a client generated from /openapi.json (openapi-typescript, openapi-fetch) under tsc --strict', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-client-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    const server = await startTestServer({}, { adapter: 'koa' });
    try {
      await exec(process.execPath, [
        '--import',
        join(ROOT, 'dist/test/support/typescript5-register.js'),
        join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
        `${server.url}/openapi.json`,
        '--output',
        join(dir, 'api.d.ts'),
      ]);
    } finally {
      await server.close();
    }
  });
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles with tsc --noEmit --strict, with no cast, and refuses what the API refuses', async () => {
    const { stdout } = await exec(TSC, ['--noEmit', ...COMPILER_FLAGS, 'client.ts'], { cwd: dir }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(stdout).to.equal('');
  });

  describe('runs against a live server on loopback', () => {
    let dns: TestDnsServer;
    let receiver: TestReceiver;
    before(async () => {
      await exec(TSC, [...COMPILER_FLAGS, '--outDir', 'out', 'client.ts'], { cwd: dir });
      receiver = await startReceiver();
      dns = await startDnsServer({
        'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] },
        'hooks.test': { A: [{ address: '127.0.0.1', ttl: 600 }] },
      });
    });
    after(async () => {
      await receiver?.close();
      dns?.close();
    });

    eachAdapter(() => {
      let server: TestServer;
      before(async () => {
        server = await startTestServer({ dnsServers: [dns.address], allowPrivateTargets: true });
      });
      after(() => server.close());

      it('looks a name up, creates, reads, changes, lists and deletes a document, and creates, lists and removes a watch', async () => {
        const { stdout } = await exec(process.execPath, [join(dir, 'out/client.js')], {
          env: {
            ...process.env,
            DOSSIER_URL: server.url,
            DOSSIER_KEY: await server.key(),
            DOSSIER_HOOK: `http://hooks.test:${receiver.port}/in`,
          },
        });
        const seen = JSON.parse(stdout) as Record<string, unknown>;
        expect(seen).to.deep.equal({
          addresses: ['93.184.216.34'],
          template: 6,
          read: 'From a generated client',
          changed: { name: 'Renamed', favorite: true },
          listed: [1],
          total: 1,
          deleted: true,
          streamed: true,
          deletedId: true,
          notFound: 'Resource not found.',
          missingStatus: 404,
          watch: { type: 'dns', domain: 'example.test', interval: 900 },
          listedWatches: [true],
          removedStatus: 204,
          left: 0,
        });
      });
    });
  });
});
