import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../support/paths.js';

// The embedding examples of the README and docs/embedding.md, compiled as an embedder's code is: each
// TypeScript block that imports the library, in a file of its own, against the package's declarations
// (dist/lib/index.d.ts as `dossier`), with `tsc --noEmit --strict`. A block that stops fitting the
// library's types (a renamed field, a string where an id is a number) fails here.

const exec = promisify(execFile);
const ROOT = projectRoot();

/** The ```ts blocks of `file` that import the library's main entry. */
function embeddingBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).filter((code) => /from 'dossier';/.test(code));
}

describe("the README's and docs/embedding.md's embedding examples type-check against the library", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-embedding-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  for (const file of ['README.md', 'docs/embedding.md']) {
    it(`compiles every block of ${file} with tsc --noEmit --strict`, async () => {
      const blocks = embeddingBlocks(file);
      expect(blocks.length, 'blocks that import dossier').to.be.greaterThan(0);
      const names = blocks.map((code, index) => {
        const name = `${file.replace(/\W/g, '-')}-${index}.ts`;
        writeFileSync(join(dir, name), code);
        return name;
      });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            skipLibCheck: true,
            types: ['node'],
            paths: { dossier: [join(ROOT, 'dist/lib/index.d.ts')] },
          },
          files: names,
        }),
      );
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
      const { stdout } = await exec(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir }).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout }),
      );
      expect(stdout).to.equal('');
    });
  }
});
