import { createDossier, type Dossier } from '../../lib/dossier.js';
import { SILENT_LOGGER, type DossierOptions } from '../../lib/options.js';
import type { NewKey } from '../../lib/ports/key-store.js';
import { ADAPTERS, mount, type AdapterName, type MountOptions } from './adapters.js';
import { emptyNamespaces } from './isolation.js';
import { checkAgainstDocument } from './openapi-check.js';

/** A Dossier served over HTTP on a free loopback port, for black-box tests. */
export interface TestServer {
  dossier: Dossier;
  /** The adapter that serves it. */
  adapter: AdapterName;
  /** `http://127.0.0.1:PORT`, and the prefix Dossier is mounted under. */
  url: string;
  /** Creates a key and returns its plaintext secret. */
  key(input?: Partial<NewKey>): Promise<string>;
  /**
   * `fetch` against the server with an optional bearer key. Every answer is checked against the OpenAPI
   * document (status, declared headers, body): one that does not match rejects, failing the test.
   */
  get(path: string, key?: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Options every test Dossier starts from: nothing on disk, nothing shared, and no log (a Dossier given
 * no logger writes a line a request to standard error; the tests of logging pass their own).
 */
export function testOptions(options: DossierOptions = {}): DossierOptions {
  return { store: 'memory://', cache: 'memory://', logger: SILENT_LOGGER, ...options };
}

/** The adapters the suites run through: all of them, or those `DOSSIER_TEST_ADAPTERS` names (`koa,fetch`). */
export function selectedAdapters(): readonly AdapterName[] {
  const named = process.env.DOSSIER_TEST_ADAPTERS?.split(',').map((name) => name.trim());
  return named === undefined ? ADAPTERS : ADAPTERS.filter((adapter) => named.includes(adapter));
}

/** The adapter the test being run serves through (see {@link eachAdapter}). */
let current: AdapterName = 'koa';

/** The adapter of the suite being run (see {@link eachAdapter}). */
export function currentAdapter(): AdapterName {
  return current;
}

/**
 * Runs `suite` once for each adapter, in a `describe` of its own, whose test servers
 * ({@link startTestServer}) mount Dossier through that adapter: every HTTP test proves every adapter.
 */
export function eachAdapter(suite: (adapter: AdapterName) => void): void {
  for (const adapter of selectedAdapters()) {
    describe(`through ${adapter}`, function () {
      before(async () => {
        current = adapter;
        // Each adapter's run starts on empty shared stores, as a test file does.
        await emptyNamespaces();
      });
      after(() => {
        current = 'koa';
      });
      suite(adapter);
    });
  }
}

/**
 * Builds a Dossier with {@link testOptions} and serves it on port 0, through the adapter of the suite
 * being run ({@link eachAdapter}; Koa outside one), or `mounting.adapter`.
 */
export async function startTestServer(
  options: DossierOptions = {},
  mounting: MountOptions & { adapter?: AdapterName } = {},
): Promise<TestServer> {
  const dossier = createDossier(testOptions(options));
  const adapter = mounting.adapter ?? current;
  const served = await mount(adapter, dossier, mounting);
  const url = served.url + (mounting.prefix ?? '');
  return {
    dossier,
    adapter,
    url,
    async key(input = {}) {
      return (await dossier.keys.create({ name: 'test', ...input })).secret;
    },
    async get(path, key, init = {}) {
      const headers = new Headers(init.headers);
      if (key !== undefined) headers.set('Authorization', `Bearer ${key}`);
      const response = await fetch(url + path, { ...init, headers, redirect: 'manual' });
      await checkAgainstDocument((init.method ?? 'GET').toUpperCase(), path, response);
      return response;
    },
    async close() {
      await served.close();
      await dossier.close();
    },
  };
}
