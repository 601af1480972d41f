import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { projectRoot } from '../support/paths.js';

/** A program that mounts a Dossier made without a logger, as an app does, and makes two requests. */
const PROGRAM = `
import { createDossier } from 'dossier';
import { createFetchHandler } from 'dossier/fetch';
const dossier = createDossier({ store: 'memory://', ...JSON.parse(process.argv[1]) });
const handle = createFetchHandler(dossier, { prefix: '/dossier' });
for (const path of ['/dossier/healthz', '/dossier/api/v1/documents']) await handle(new Request('http://app.test' + path));
await dossier.close();
`;

function run(options: Record<string, unknown>): { stdout: string; lines: Record<string, unknown>[] } {
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM, JSON.stringify(options)], {
    cwd: projectRoot(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(ran.status, ran.stderr).to.equal(0);
  const lines = ran.stderr
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stdout: ran.stdout, lines };
}

describe('a mounted Dossier given no logger', function () {
  this.timeout(90_000);

  it('writes one JSON line a request to standard error, as dossier serve does, and nothing to standard output', () => {
    const { stdout, lines } = run({});
    expect(stdout).to.equal('');
    expect(lines.map((line) => [line.level, line.msg, line.method, line.route, line.status])).to.deep.equal([
      ['info', 'request', 'GET', '/healthz', 200],
      ['info', 'request', 'GET', '/api/v1/documents', 401],
    ]);
  });

  it('writes nothing at logLevel silent, and only warnings and errors at warn', () => {
    expect(run({ logLevel: 'silent' }).lines).to.deep.equal([]);
    expect(run({ logLevel: 'warn' }).lines).to.deep.equal([]);
  });
});
