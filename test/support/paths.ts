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

/**
 * Skips the running test (or, in a `before`, its suite) with a note saying why when a file of
 * {@link SHARED_MAXMIND} is absent: those databases come from the workplace's shared folder, not from
 * this repository.
 */
export function skipUnlessSharedMaxmind(context: Mocha.Context, ...names: string[]): void {
  const missing = names.filter((name) => !existsSync(join(SHARED_MAXMIND, name)));
  if (missing.length === 0) return;
  console.log(
    `      (skipped: MaxMind's test data ${missing.join(', ')} is not in ${SHARED_MAXMIND}, the shared folder beside the project)`,
  );
  context.skip();
}
