import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDocx } from '../../../adapters/http/workspace/assets.js';

const require = createRequire(import.meta.url);

/**
 * How the workspace finds `docx`, its optional peer for the Word download (docs/contract.md §14): the
 * browser build when the package is installed, nothing when it is not, an error when it is broken. (The
 * page without it is checked in Chromium by test/browser/workspace.test.ts.)
 */
describe("the workspace's optional docx", () => {
  let empty: string;
  beforeEach(() => {
    empty = mkdtempSync(join(tmpdir(), 'dossier-no-docx-'));
  });
  afterEach(() => {
    rmSync(empty, { recursive: true, force: true });
  });

  it('finds the browser build of the installed package: an ES module that imports nothing', () => {
    expect(findDocx())
      .to.include('export {')
      .and.not.match(/^import /m);
  });

  it('finds nothing where the package is not installed (Node resolving it from a folder without it)', () => {
    const resolve = (name: string): string => require.resolve(name, { paths: [empty] });
    expect(() => resolve('docx'))
      .to.throw()
      .with.property('code', 'MODULE_NOT_FOUND');
    expect(findDocx(resolve)).to.equal(null);
  });

  it('throws where the package is found but its browser build is missing: a broken install is no absent one', () => {
    expect(() => findDocx(() => join(empty, 'index.cjs')))
      .to.throw()
      .with.property('code', 'ENOENT');
  });
});
