#!/usr/bin/env node
// The `dossier` command that package.json's `bin` names. It is committed with its executable bit and
// only loads the compiled CLI, because `npm run clean` and `tsc` rewrite dist/ without that bit: a link
// that npx made to a file in dist/ would stop running after the next `npm test`.
import { existsSync } from 'node:fs';

const main = new URL('../dist/adapters/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('dossier: the command is not built yet; run `npm run build` (or `npm ci`) first.\n');
  process.exit(1);
}
await import(main.href);
