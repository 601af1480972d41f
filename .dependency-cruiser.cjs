// The layers of Dossier (README, "Architecture"), kept by `npm run lint:deps`, which `npm test` runs.
// Paths are relative to the folder depcruise runs in: the project, or a test's small tree.

/** The core's layers that may not reach into one another (each is used through the ports). */
const LAYERS = 'lookup|documents|keys|stores';

/** The web frameworks Dossier can be mounted in, as node_modules names them. */
const FRAMEWORKS = 'koa|@koa/[^/]+|express|fastify|fastify-plugin|hono|@hono/[^/]+';

/** What the HTTP contract itself loads: its optional peers, and its own parsers. */
const HTTP_PACKAGES = 'swagger-ui-dist|prom-client|negotiator|qs';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle: a module never depends, even through others, on itself.',
      severity: 'error',
      from: { path: '^(lib|adapters)/' },
      to: { circular: true },
    },
    {
      name: 'ports-import-only-ports',
      comment: 'lib/ports holds interfaces only: it imports other ports and the error registry, nothing else.',
      severity: 'error',
      from: { path: '^lib/ports/' },
      to: { dependencyTypesNot: ['core'], pathNot: ['^lib/ports/', '^lib/errors\\.ts$'] },
    },
    {
      name: 'records-import-only-ports',
      comment: 'lib/records (how keys and quota counters are kept at rest) is read by keys/, quota/ and stores/ alike.',
      severity: 'error',
      from: { path: '^lib/records/' },
      to: { dependencyTypesNot: ['core'], path: '^lib/', pathNot: ['^lib/ports/', '^lib/records/', '^lib/errors\\.ts$'] },
    },
    {
      name: 'tokens-import-only-ports',
      comment: 'The DI tokens name ports, never implementations.',
      severity: 'error',
      from: { path: '^lib/tokens\\.ts$' },
      to: { path: '^lib/', pathNot: '^lib/ports/' },
    },
    {
      name: 'core-never-imports-adapters',
      comment: 'lib/ is framework-agnostic: adapters call the core, never the other way round.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: ['^adapters/', `^node_modules/(${FRAMEWORKS}|${HTTP_PACKAGES}|pino)/`] },
    },
    {
      name: 'http-is-framework-free',
      comment:
        'adapters/http holds the HTTP contract once, for every framework: it never imports one (Node\'s own http is ' +
        'not a framework), nor an adapter of one.',
      severity: 'error',
      from: { path: '^adapters/http/' },
      to: { path: [`^node_modules/(${FRAMEWORKS})/`, '^adapters/(koa|express|fastify|fetch)/'] },
    },
    {
      name: 'framework-adapters-are-glue',
      comment:
        'A framework adapter (koa, express, fastify, fetch) reaches the contract through adapters/http/index.ts alone, ' +
        'and no other adapter.',
      severity: 'error',
      from: { path: '^adapters/(koa|express|fastify|fetch)/' },
      to: { path: '^adapters/', pathNot: ['^adapters/$1/', '^adapters/http/index\\.ts$'] },
    },
    {
      name: 'framework-adapters-use-their-framework-alone',
      comment: 'adapters/koa imports Koa, adapters/express Express, adapters/fastify Fastify; adapters/fetch none.',
      severity: 'error',
      from: { path: '^adapters/(koa|express|fastify|fetch)/' },
      to: { path: `^node_modules/(${FRAMEWORKS})/`, pathNot: '^node_modules/$1/' },
    },
    {
      name: 'adapters-use-the-public-surface',
      comment:
        'adapters/ reach the core through lib/index.ts, as an embedder does, or lib/internal.ts for the few rules ' +
        'and bounds they show as the core applies them; never a deep path.',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^lib/', pathNot: '^lib/(index|internal)\\.ts$' },
    },
    {
      name: 'cli-uses-the-adapters-whole',
      comment:
        'The CLI loads the Koa adapter and the HTTP contract through their indexes, and prints the wire shapes of ' +
        'adapters/http/wire.ts; never another of their files.',
      severity: 'error',
      from: { path: '^adapters/cli/' },
      to: { path: '^adapters/(koa|http)/', pathNot: ['^adapters/(koa|http)/index\\.ts$', '^adapters/http/wire\\.ts$'] },
    },
    {
      name: 'layers-keep-out-of-each-other',
      comment:
        `lib/{${LAYERS}} never import one another's internals. The one door between them: lib/stores/shared's ` +
        'lease and append-only index, which work on the ports alone.',
      severity: 'error',
      from: { path: `^lib/(${LAYERS})/` },
      to: {
        path: `^lib/(${LAYERS})/`,
        pathNot: ['^lib/$1/', '^lib/stores/shared/(lease|append-only-index)\\.ts$'],
      },
    },
    {
      name: 'stores-stay-below',
      comment: 'lib/stores knows the ports, the records and the error registry; nothing above them.',
      severity: 'error',
      from: { path: '^lib/stores/' },
      to: { path: '^lib/', pathNot: ['^lib/stores/', '^lib/ports/', '^lib/records/', '^lib/errors\\.ts$'] },
    },
    {
      name: 'backends-keep-to-their-folder',
      comment: 'A backend folder (memory, sqlite, redis, postgres, mysql) uses its own files, sql/ and shared/; never another backend.',
      severity: 'error',
      from: { path: '^lib/stores/(memory|sqlite|redis|postgres|mysql)/' },
      to: { path: '^lib/stores/(memory|sqlite|redis|postgres|mysql)/', pathNot: '^lib/stores/$1/' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for depcruise: swc parses the sources, type-only imports included.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
  },
};
