import { expect } from 'chai';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDossier } from '../../lib/dossier.js';
import type { DossierOptions } from '../../lib/options.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { currentAdapter, eachAdapter, startTestServer, testOptions, type TestServer } from '../support/harness.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { mount } from '../support/adapters.js';

/** A TCP server that accepts connections and never says a word: a frozen Redis, as far as a client can tell. */
async function startFrozenServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A server whose store or cache is frozen. Closing a Redis client whose server never answers does not
 * finish (the store layer's to fix), so its close gives up after a moment; mocha's --exit ends the rest.
 */
async function serveWithFrozenBackend(
  options: DossierOptions,
): Promise<{ get(path: string): Promise<Response>; close(): Promise<void> }> {
  const dossier = createDossier(testOptions(options));
  const served = await mount(currentAdapter(), dossier);
  return {
    async get(path) {
      const response = await fetch(served.url + path);
      await checkAgainstDocument('GET', path, response);
      return response;
    },
    async close() {
      await served.close();
      await Promise.race([dossier.close(), sleep(100)]);
    },
  };
}

/** Sends raw bytes and returns the raw answer. */
async function raw(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(request);
  let answer = '';
  for await (const chunk of socket) answer += String(chunk);
  return answer;
}

eachAdapter(() => {
  describe("the server's own routes", () => {
    let server: TestServer;

    afterEach(async () => {
      await server?.close();
    });

    it('GET / sends a browser to /docs and tells any other client what it is', async () => {
      server = await startTestServer();
      const browser = await server.get('/', undefined, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(browser.status).to.equal(302);
      expect(browser.headers.get('location')).to.equal('/docs');
      const client = await server.get('/', undefined, { headers: { Accept: 'application/json' } });
      expect(client.status).to.equal(200);
      expect(await client.json()).to.deep.equal({ name: 'dossier', version: '0.1.0', docs: '/docs', openapi: '/openapi.json' });
      expect((await server.get('/')).status).to.equal(200);
    });

    it('GET / redirects only a client that prefers HTML, not one that refuses it or prefers JSON', async () => {
      server = await startTestServer();
      const answer = async (accept: string): Promise<number> =>
        (await server.get('/', undefined, { headers: { Accept: accept } })).status;
      expect(await answer('text/html')).to.equal(302);
      expect(await answer('text/html;q=0')).to.equal(200);
      expect(await answer('application/json, text/html;q=0.1')).to.equal(200);
      expect(await answer('*/*')).to.equal(200);
    });

    it('GET /healthz answers 200 without asking the store, even when the store is frozen', async () => {
      const frozen = await startFrozenServer();
      const frozenServer = await serveWithFrozenBackend({ store: frozen.url });
      try {
        const response = await frozenServer.get('/healthz');
        expect(response.status).to.equal(200);
        expect(await response.json()).to.deep.equal({ status: 'ok' });
      } finally {
        await frozenServer.close();
        await frozen.close();
      }
    });

    it('GET /readyz is 200 when the store and the cache answer', async () => {
      server = await startTestServer();
      const response = await server.get('/readyz');
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ status: 'ready', store: 'up', cache: 'up' });
    });

    it('GET /readyz is 503 and says which one is down when the store or the cache is frozen, instead of waiting for it', async () => {
      const frozen = await startFrozenServer();
      try {
        for (const [options, expected] of [
          [{ store: frozen.url }, { status: 'unavailable', store: 'down', cache: 'up' }],
          [{ cache: frozen.url }, { status: 'unavailable', store: 'up', cache: 'down' }],
        ] as const) {
          const frozenServer = await serveWithFrozenBackend(options);
          try {
            const response = await frozenServer.get('/readyz');
            expect(response.status).to.equal(503);
            expect(await response.json()).to.deep.equal(expected);
          } finally {
            await frozenServer.close();
          }
        }
      } finally {
        await frozen.close();
      }
    });

    it('GET /readyz is 503 when nothing listens where the store should be', async () => {
      const probe = createServer().listen(0, '127.0.0.1');
      await once(probe, 'listening');
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      server = await startTestServer({ store: `redis://127.0.0.1:${port}` });
      const response = await server.get('/readyz');
      expect(response.status).to.equal(503);
      expect(await response.json()).to.include({ status: 'unavailable', store: 'down' });
    });

    describe('X-Request-Id', () => {
      let dns: TestDnsServer;
      before(async () => {
        dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
      });
      after(async () => {
        await dns.close();
      });

      it("answers with the request's own id when it is 1–128 characters of [A-Za-z0-9._:-]", async () => {
        server = await startTestServer({ dnsServers: [dns.address] });
        const key = await server.key();
        for (const id of ['a', 'trace-1.2:3_x', 'x'.repeat(128)]) {
          const response = await server.get('/api/dns?domain=example.test', key, { headers: { 'X-Request-Id': id } });
          expect(response.headers.get('x-request-id')).to.equal(id);
        }
      });

      it('answers with a new id when the request sent none or a bad one, on every answer (errors and unknown paths too)', async () => {
        server = await startTestServer({ dnsServers: [dns.address] });
        const seen = new Set<string>();
        for (const [path, id] of [
          ['/api/dns?domain=example.test', undefined],
          ['/api/dns?domain=example.test', 'x'.repeat(129)],
          ['/api/v1/documents', 'has space'],
          ['/nowhere', 'semi;colon'],
          ['/healthz', ''],
        ] as const) {
          const response = await server.get(path, undefined, id === undefined ? {} : { headers: { 'X-Request-Id': id } });
          const answered = response.headers.get('x-request-id') ?? '';
          expect(answered, path).to.match(/^[A-Za-z0-9._:-]{1,128}$/);
          expect(answered).to.not.equal(id);
          seen.add(answered);
        }
        expect(seen.size).to.equal(5);
      });

      it('is on the answers Node gives to requests it cannot parse', async () => {
        server = await startTestServer();
        const answer = await raw(server.url, 'GET /api/dns HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
        expect(answer).to.match(/^HTTP\/1\.1 400/);
        expect(answer).to.match(/\r\nX-Request-Id: [A-Za-z0-9._:-]{1,128}\r\n/);
      });
    });
  });
});
