import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../support/paths.js';

// The package's public names, as a list: moving code behind them must not add, drop or rename one.
// A change here is a change of the package's API, to be made on purpose.

const ROOT = projectRoot();

/** Every name that `dist/<entry>.d.ts` exports (the entries export named lists only, no `export *`). */
function declaredNames(entry: string): string[] {
  const text = readFileSync(join(ROOT, 'dist', `${entry}.d.ts`), 'utf8');
  expect(text).not.to.match(/export \*/);
  const names = [...text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((match) =>
    match[1]!
      .split(',')
      .map((name) => name.trim().replace(/^type\s+/, ''))
      .filter((name) => name !== ''),
  );
  return names.sort();
}

/** The names `dist/<entry>.js` exports at run time. */
async function runtimeNames(entry: string): Promise<string[]> {
  const module = (await import(pathToFileURL(join(ROOT, 'dist', `${entry}.js`)).href)) as object;
  return Object.keys(module).sort();
}

const LIBRARY = {
  values: [
    'BATCH_CONCURRENCY',
    'BATCH_MAX_ITEMS',
    'DossierError',
    'DossierRetryableError',
    'DossierValidationError',
    'ERROR_CODES',
    'LOG_LEVELS',
    'LOOKUP_KINDS',
    'Metering',
    'SCOPES',
    'WATCH_EVENTS',
    'WATCH_TYPES',
    'createDossier',
    'isDossierError',
    'isPublicAddress',
    'keyStatusAt',
    'optionsFromEnv',
    'parseBatchRequest',
    'resolveOptions',
  ],
  types: [
    'AdminSessions',
    'ApiKey',
    'BatchItemOutcome',
    'BatchItemRequest',
    'BatchOptions',
    'BatchRun',
    'CaaRecord',
    'Clock',
    'CounterStore',
    'CustomTemplateOptions',
    'DmarcPolicy',
    'DnsData',
    'DnsMessageAnswer',
    'DnsMessageClient',
    'DnsMessageRecord',
    'DnsMessageType',
    'DnsResolver',
    'DnssecStatus',
    'Document',
    'DocumentChanges',
    'DocumentListOptions',
    'DocumentPage',
    'DocumentService',
    'DocumentStreamEvent',
    'Dossier',
    'DossierOptions',
    'ErrorCode',
    'GenerationRequest',
    'HostPort',
    'IncrementOptions',
    'IpData',
    'KeyChanges',
    'KeyReport',
    'KeyStatus',
    'KeyStore',
    'KeyUsage',
    'LogLevel',
    'Logger',
    'Lookup',
    'LookupKind',
    'LookupOptions',
    'LookupOutcome',
    'LookupResult',
    'LookupService',
    'MailPolicy',
    'Metered',
    'NewDocument',
    'NewKey',
    'OpenAiOptions',
    'QuotaState',
    'QuotaStore',
    'ResolvedOptions',
    'Scope',
    'SignInVerdict',
    'SslData',
    'Telemetry',
    'Template',
    'TextGenerator',
    'UsageDay',
    'CreatedWatch',
    'Delivery',
    'DeliveryStatus',
    'NewWatch',
    'Watch',
    'WatchEvent',
    'WatchEventType',
    'WatchListener',
    'WatchOwner',
    'WatchService',
    'WatchType',
    'WhoisData',
    'WorkspaceSessions',
    'WorkspaceSignIn',
  ],
};

// HOST, PORT, DOSSIER_TRUST_PROXY and DOSSIER_KEEP_ALIVE_TIMEOUT_MS are the server's settings: serverOptionsFromEnv and ServerOptions moved
// here from the library's entry, on purpose. wireWatch and wireDelivery left the library's
// entry for the HTTP contract, beside the watch's schema: the wire shape is the HTTP edge's.
const KOA_ADAPTER = {
  values: [
    'HTTP_ERRORS',
    'ROUTES',
    'answerClientErrorsWithJson',
    'applyKeepAlive',
    'authenticate',
    'bearerSecret',
    'buildOpenApiDocument',
    'createAdminRouter',
    'createDossierRouter',
    'createJsonLogger',
    'createKoaApp',
    'createMetrics',
    'defineRoute',
    'errorMiddleware',
    'openApiDocument',
    'routePatternOf',
    'serverOptionsFromEnv',
    'validateAgainst',
  ],
  types: [
    'DossierMetrics',
    'DossierRouter',
    'HttpError',
    'JsonLoggerOptions',
    'KoaOptions',
    'OpenApiDocument',
    'ResponseSpec',
    'RouteSpec',
    'ServerOptions',
    'Validation',
  ],
};

const EXPRESS_ADAPTER = {
  values: ['answerClientErrorsWithJson', 'applyKeepAlive', 'createDossierRouter', 'serverOptionsFromEnv'],
  types: ['ExpressOptions', 'ServerOptions'],
};

const FASTIFY_ADAPTER = {
  values: ['answerClientError', 'answerFrameworkError', 'applyKeepAlive', 'dossierPlugin', 'serverOptionsFromEnv'],
  types: ['DossierPluginOptions', 'ServerOptions'],
};

const FETCH_ADAPTER = {
  values: ['answerRequestError', 'createFetchHandler', 'createRouteHandlers'],
  types: ['FetchClient', 'FetchHandler', 'FetchOptions', 'RouteHandler', 'RouteHandlers', 'RouteHandlersOptions'],
};

// What a Next.js app names in its next.config for the standalone output.
const NEXT = { values: ['dossierTracingIncludes'], types: [] };

// `dossier serve` as a function, for an app of one's own (examples/serve-*.ts).
const SERVE = {
  values: ['answerClientErrorsWithJson', 'applyKeepAlive', 'serve', 'serverOptionsFromEnv'],
  types: ['ServeContext', 'ServerMaker', 'ServerOptions'],
};

for (const [name, entry, expected] of [
  ['dossier (lib/index.ts)', 'lib/index', LIBRARY],
  ['dossier/koa (adapters/koa/index.ts)', 'adapters/koa/index', KOA_ADAPTER],
  ['dossier/express (adapters/express/index.ts)', 'adapters/express/index', EXPRESS_ADAPTER],
  ['dossier/fastify (adapters/fastify/index.ts)', 'adapters/fastify/index', FASTIFY_ADAPTER],
  ['dossier/fetch (adapters/fetch/index.ts)', 'adapters/fetch/index', FETCH_ADAPTER],
  ['dossier/serve (adapters/serve/index.ts)', 'adapters/serve/index', SERVE],
  ['dossier/next (adapters/next/index.ts)', 'adapters/next/index', NEXT],
] as const) {
  describe(`the exports of ${name}`, () => {
    it('are the listed values at run time', async () => {
      expect(await runtimeNames(entry)).to.deep.equal([...expected.values].sort());
    });

    it('are the listed values and types in the declarations', () => {
      expect(declaredNames(entry)).to.deep.equal([...expected.values, ...expected.types].sort());
    });
  });
}
