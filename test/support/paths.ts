import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: the nearest folder above this file with a package.json (same from src and dist). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json above the tests');
    dir = parent;
  }
  return dir;
}

/** MaxMind's own test databases in the workplace's shared folder beside the project (may be absent). */
export const SHARED_MAXMIND = join(projectRoot(), '..', 'shared', 'data', 'maxmind');
