import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../support/paths.js';

const ROOT = projectRoot();
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const run = promisify(execFile);

/** Files of a small tree, by path: each imports the files it names. */
type Tree = Record<string, string[]>;

/** A tree that keeps every rule: the layers as the project draws them. */
const SOUND: Tree = {
  'lib/errors.ts': [],
  'lib/ports/key-store.ts': ['lib/errors.ts'],
  'lib/ports/counter-store.ts': ['lib/ports/key-store.ts'],
  'lib/tokens.ts': ['lib/ports/key-store.ts'],
  'lib/records/stored-key.ts': ['lib/ports/key-store.ts'],
  'lib/stores/shared/lease.ts': ['lib/ports/counter-store.ts'],
  'lib/stores/sql/counters.ts': ['lib/stores/shared/lease.ts'],
  'lib/stores/sqlite/backend.ts': ['lib/stores/sql/counters.ts', 'lib/records/stored-key.ts'],
  'lib/stores/redis/backend.ts': ['lib/stores/shared/lease.ts'],
  'lib/keys/keyv-key-store.ts': ['lib/records/stored-key.ts', 'lib/stores/shared/lease.ts', 'lib/tokens.ts'],
  'lib/index.ts': ['lib/keys/keyv-key-store.ts'],
  'lib/internal.ts': ['lib/keys/keyv-key-store.ts'],
  'adapters/http/handler.ts': ['lib/index.ts', 'lib/internal.ts'],
  'adapters/http/index.ts': ['adapters/http/handler.ts'],
  'adapters/http/wire.ts': ['lib/index.ts'],
  'adapters/koa/logging.ts': [],
  'adapters/koa/index.ts': ['adapters/koa/logging.ts'],
  'adapters/koa/app.ts': ['lib/index.ts', 'adapters/http/index.ts'],
  'adapters/express/router.ts': ['lib/index.ts', 'adapters/http/index.ts'],
  'adapters/cli/run.ts': ['lib/index.ts', 'adapters/koa/index.ts', 'adapters/http/wire.ts'],
};

/** Runs the project's rule file on `tree`; its exit code and what it printed. */
async function cruise(tree: Tree): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-deps-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext' } }));
    for (const [path, imports] of Object.entries(tree)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      const lines = imports.map((target, index) => {
        const from = dirname(path)
          .split('/')
          .map(() => '..')
          .join('/');
        return `import { x${index} } from '${from}/${target.replace(/\.ts$/, '.js')}';`;
      });
      writeFileSync(join(dir, path), [...lines, 'export const x0 = 0;', ''].join('\n'));
    }
    const args = [DEPCRUISE, 'lib', 'adapters', '--config', CONFIG, '--output-type', 'err'];
    const done = await run(process.execPath, args, { cwd: dir }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    return done;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** {@link SOUND} with one more import. */
function withImport(path: string, target: string): Tree {
  return { ...SOUND, [path]: [...(SOUND[path] ?? []), target] };
}

describe('the dependency rules (.dependency-cruiser.cjs)', function () {
  this.timeout(30_000);

  it('let a tree that keeps the layers through', async () => {
    const { code, output } = await cruise(SOUND);
    expect(output).to.contain('no dependency violations found');
    expect(code).to.equal(0);
  });

  const BAD: { rule: string; path: string; target: string }[] = [
    { rule: 'ports-import-only-ports', path: 'lib/ports/key-store.ts', target: 'lib/keys/keyv-key-store.ts' },
    { rule: 'records-import-only-ports', path: 'lib/records/stored-key.ts', target: 'lib/stores/shared/lease.ts' },
    { rule: 'tokens-import-only-ports', path: 'lib/tokens.ts', target: 'lib/stores/redis/backend.ts' },
    { rule: 'core-never-imports-adapters', path: 'lib/keys/keyv-key-store.ts', target: 'adapters/koa/app.ts' },
    { rule: 'layers-keep-out-of-each-other', path: 'lib/keys/keyv-key-store.ts', target: 'lib/stores/redis/backend.ts' },
    { rule: 'stores-stay-below', path: 'lib/stores/redis/backend.ts', target: 'lib/tokens.ts' },
    { rule: 'backends-keep-to-their-folder', path: 'lib/stores/redis/backend.ts', target: 'lib/stores/sqlite/backend.ts' },
    { rule: 'adapters-use-the-public-surface', path: 'adapters/koa/app.ts', target: 'lib/keys/keyv-key-store.ts' },
    { rule: 'cli-uses-the-adapters-whole', path: 'adapters/cli/run.ts', target: 'adapters/koa/logging.ts' },
    { rule: 'cli-uses-the-adapters-whole', path: 'adapters/cli/run.ts', target: 'adapters/http/handler.ts' },
    { rule: 'http-is-framework-free', path: 'adapters/http/handler.ts', target: 'adapters/koa/app.ts' },
    { rule: 'framework-adapters-are-glue', path: 'adapters/express/router.ts', target: 'adapters/http/handler.ts' },
    { rule: 'framework-adapters-are-glue', path: 'adapters/express/router.ts', target: 'adapters/koa/app.ts' },
    { rule: 'no-circular', path: 'lib/ports/key-store.ts', target: 'lib/ports/counter-store.ts' },
  ];
  for (const { rule, path, target } of BAD) {
    it(`fail on ${path} importing ${target} (${rule})`, async () => {
      const { code, output } = await cruise(withImport(path, target));
      expect(code, output).to.not.equal(0);
      // The rule names the import at fault (a circle: every module of it, on the lines below).
      const report = output.slice(output.indexOf(`error ${rule}: `)).split(/\n\s*\n|\n\s+error /)[0]!;
      expect(report, output).to.contain(`error ${rule}: `).and.contain(`${path} →`).and.contain(target);
    });
  }
});
