import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

/** Dossier's version, from the package.json above this file (in the sources or in dist/). */
export function dossierVersion(): string {
  if (version !== undefined) return version;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'dossier' && typeof pkg.version === 'string') return (version = pkg.version);
    } catch {
      // Not here: one folder up.
    }
    const parent = dirname(dir);
    if (parent === dir) return (version = '0.0.0');
    dir = parent;
  }
}
