import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dossierTracingIncludes } from '../../../adapters/next/index.js';

/** Writes `node_modules/<name>/package.json` under `dir`, with these dependencies. */
function installed(dir: string, name: string, dependencies: Record<string, string> = {}): void {
  mkdirSync(join(dir, 'node_modules', name), { recursive: true });
  writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', dependencies }));
}

describe('dossierTracingIncludes (dossier/next)', () => {
  let project: string;
  beforeEach(() => (project = mkdtempSync(join(tmpdir(), 'dossier-tracing-'))));
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it("names Dossier's package.json and each run-time peer installed, with what it depends on, wherever npm put it", () => {
    installed(project, 'dossier', { tldts: '^7' });
    installed(project, 'swagger-ui-dist', { '@scarf/scarf': '1.4.0' });
    installed(project, '@scarf/scarf');
    installed(project, 'prom-client', { tdigest: '^0.1', '@opentelemetry/api': '^1' });
    installed(project, 'tdigest', { bintrees: '1.0.2' });
    installed(project, '@opentelemetry/api');
    // A copy of its own, nested where a version conflict puts it.
    installed(join(project, 'node_modules', 'tdigest'), 'bintrees');
    installed(project, 'pg'); // a dependency of the app, not of Dossier: still a peer Dossier may load
    expect(dossierTracingIncludes(project).sort()).to.deep.equal(
      [
        './node_modules/dossier/package.json',
        './node_modules/swagger-ui-dist/**/*',
        './node_modules/@scarf/scarf/**/*',
        './node_modules/prom-client/**/*',
        './node_modules/tdigest/**/*',
        './node_modules/tdigest/node_modules/bintrees/**/*',
        './node_modules/@opentelemetry/api/**/*',
        './node_modules/pg/**/*',
      ].sort(),
    );
  });

  it('names nothing a project does not have (a peer missing, a dependency missing)', () => {
    installed(project, 'swagger-ui-dist', { '@scarf/scarf': '1.4.0' });
    expect(dossierTracingIncludes(project)).to.deep.equal(['./node_modules/swagger-ui-dist/**/*']);
  });
});
