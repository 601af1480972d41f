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

/** MaxMind's own test databases (MIT), copied into the fixtures with their licence. */
export const MAXMIND_TEST_DATA = join(projectRoot(), 'test', 'fixtures', 'maxmind');
