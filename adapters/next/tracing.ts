import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * What Dossier loads when the app runs rather than through an import a bundler follows: its optional
 * peers (the /docs page's files, /metrics, the log of dossier/serve, the drivers of the stores and their
 * job engine, /mcp's SDK, the workspace's Word export), which an app installs or not, and its own package.json (its version, in /openapi.json).
 */
const LOADED_AT_RUN_TIME = [
  'swagger-ui-dist',
  'prom-client',
  'pino',
  '@keyv/redis',
  'pg',
  'mysql2',
  'bullmq',
  '@modelcontextprotocol/server',
  'docx',
];

/**
 * The files Next.js's standalone output must carry for Dossier, as `outputFileTracingIncludes` globs
 * (`./node_modules/swagger-ui-dist/**\/*`, …), relative to `projectDir`: Dossier itself is bundled with
 * the app, and its optional peers, those installed, are loaded by Node when the app runs, where no tracer
 * follows them; so each of them is named here with every package it depends on. For next.config:
 * `outputFileTracingIncludes: { '/dossier/**': dossierTracingIncludes() }`.
 * @param projectDir the Next.js project, whose node_modules hold the peers. @default process.cwd()
 */
export function dossierTracingIncludes(projectDir: string = process.cwd()): string[] {
  const found = new Set<string>();
  const visit = (name: string, from: string): void => {
    const dir = packageDir(name, from);
    if (dir === undefined || found.has(dir)) return;
    found.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) visit(dependency, dir);
  };
  for (const peer of LOADED_AT_RUN_TIME) visit(peer, projectDir);
  const dossier = packageDir('dossier', projectDir);
  const globs = [...found].map((dir) => `./${relative(projectDir, dir).split(sep).join('/')}/**/*`);
  return dossier === undefined ? globs : [`./${relative(projectDir, dossier).split(sep).join('/')}/package.json`, ...globs];
}

/** The folder of package `name` as Node finds it from `from`: in the nearest node_modules that has it. */
function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
