import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { countWords } from '../../../lib/internal.js';
import workspaceCss from './app/workspace.css.text.js';
import workspaceJs from './app/workspace.js.text.js';
import { FRAME_CSS, pageIcon } from '../page-frame.js';

// The workspace's own files (app/workspace.js, checked by tsc through its `// @ts-check`, and
// app/workspace.css) reach the server as the panel's do: modules exporting their text, which the build
// writes (scripts/text-modules.mjs), imported rather than read from disk.

/** The workspace's script, an ES module served as `/workspace/assets/workspace.js`. */
export const WORKSPACE_JS: string = workspaceJs;

/** The workspace's stylesheet, served as `/workspace/assets/workspace.css` (light and dark): the frame's, then its own. */
export const WORKSPACE_CSS: string = `${FRAME_CSS}\n${workspaceCss}`;

/**
 * The library's own word count as an ES module, served as `/workspace/assets/word-count.js`: the
 * function's source, which refers to nothing outside itself, so that the count kept live while a text
 * is edited is the one the API answers once it is saved, from one implementation.
 */
export const WORD_COUNT_JS = `export ${countWords.toString()}\n`;

const require = createRequire(import.meta.url);

/**
 * The browser build of `docx` (an ES module that imports nothing, about 1 MB) in the package that
 * `resolve` finds (by default Node's module resolution from here, as the reference page's
 * swagger-ui-dist is found); `null` when it finds none. Another resolution can be given, to see what
 * the workspace does where the package is not installed.
 * @throws when the package is found but its browser build cannot be read (a broken install is no absent one).
 */
export function findDocx(
  // Resolved by Node when the app runs, not by a bundler (Next.js) when it is built (see http/peers.ts).
  resolve: (name: string) => string = (name) => require.resolve(/* webpackIgnore: true */ /* turbopackIgnore: true */ name),
): string | null {
  try {
    // The package's `require` entry (dist/index.cjs) finds its folder; the page takes the ES module beside it.
    return readFileSync(join(dirname(resolve('docx')), 'index.mjs'), 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
    return null;
  }
}

let docx: string | null | undefined;

/**
 * The browser build of `docx` ({@link findDocx}), served as `/workspace/assets/docx.js` for the Word
 * download, which the page makes in the browser; `null` when the optional peer dependency `docx` is not
 * installed (the page then offers no `.docx`). Read on the first use, once.
 */
export function docxModule(): string | null {
  if (docx === undefined) docx = findDocx();
  return docx;
}

/** The workspace's icon: the panel's mark, in the workspace's green. */
export const WORKSPACE_ICON = pageIcon('#1f7a55');
