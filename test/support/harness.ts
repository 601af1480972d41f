import type { AddressInfo } from 'node:net';
import { createKoaApp } from '../../adapters/koa/app.js';
import { LISTEN_BACKLOG } from '../../adapters/cli/listen-backlog.js';
import { answerClientErrorsWithJson } from '../../adapters/http/client-errors.js';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import type { DossierOptions } from '../../lib/options.js';
import type { NewKey } from '../../lib/ports/key-store.js';
import { checkAgainstDocument } from './openapi-check.js';

/** A Dossier served over HTTP on a free loopback port, for black-box tests. */
export interface TestServer {
  dossier: Dossier;
  /** `http://127.0.0.1:PORT` */
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

/** Options every test Dossier starts from: nothing on disk, nothing shared. */
export function testOptions(options: DossierOptions = {}): DossierOptions {
  return { store: 'memory://', cache: 'memory://', ...options };
}

/** Builds a Dossier with {@link testOptions} and serves it with the Koa adapter on port 0. */
export async function startTestServer(options: DossierOptions = {}): Promise<TestServer> {
  const dossier = createDossier(testOptions(options));
  const server = createKoaApp(dossier).listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });
  answerClientErrorsWithJson(server);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    dossier,
    url,
    async key(input = {}) {
      return (await dossier.keys.create({ name: 'test', ...input })).secret;
    },
    async get(path, key, init = {}) {
      const headers = new Headers(init.headers);
      if (key !== undefined) headers.set('Authorization', `Bearer ${key}`);
      const response = await fetch(url + path, { ...init, headers, redirect: 'manual' });
      await checkAgainstDocument((init.method ?? 'GET').toUpperCase(), url + path, response);
      return response;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dossier.close();
    },
  };
}
