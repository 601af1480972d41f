import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
// Express 4, installed as express4 (npm:express@4): the same types as Express 5's for what is used here.
import express4 from 'express4';
import Fastify from 'fastify';
import Koa from 'koa';
import { LISTEN_BACKLOG } from '../../adapters/cli/listen-backlog.js';
import { createDossierRouter as expressRouter } from '../../adapters/express/index.js';
import { answerFrameworkError, dossierPlugin } from '../../adapters/fastify/index.js';
import { answerRequestError, createFetchHandler } from '../../adapters/fetch/index.js';
import { answerClientError, answerClientErrorsWithJson } from '../../adapters/http/index.js';
import { createDossierRouter as koaRouter, createKoaApp } from '../../adapters/koa/index.js';
import type { Dossier } from '../../lib/dossier.js';

/** The framework adapters of Dossier's HTTP contract, each an entry of the package. */
export const ADAPTERS = ['koa', 'express', 'fastify', 'fetch'] as const;

/** The name of an adapter. */
export type AdapterName = (typeof ADAPTERS)[number];

/** How a test mounts Dossier. */
export interface MountOptions {
  /** Where Dossier is mounted in the app. @default '' */
  prefix?: string;
  /** Believe `X-Forwarded-*`. @default false */
  trustProxy?: boolean;
  /** The major version of Express an `express` mount uses. @default 5 */
  expressVersion?: 4 | 5;
}

/** An app serving Dossier, listening on a free loopback port. */
export interface Mounted {
  server: Server;
  /** `http://127.0.0.1:PORT` (without the prefix). */
  url: string;
  close(): Promise<void>;
}

/**
 * An HTTP server on port 0 of 127.0.0.1 whose app mounts `dossier` through `adapter`, as a user's
 * app does: Koa through createKoaApp (at the root) or createDossierRouter, Express and Fastify with
 * their own apps, fetch through @hono/node-server (given each client's address). Node's own answers
 * to unreadable requests are JSON (Fastify's through its clientErrorHandler).
 */
export async function mount(
  adapter: AdapterName,
  dossier: Dossier,
  { prefix = '', trustProxy = false, expressVersion = 5 }: MountOptions = {},
): Promise<Mounted> {
  let server: Server;
  let stop = async (): Promise<void> => {};
  switch (adapter) {
    case 'koa': {
      let app: Koa;
      if (prefix === '') app = createKoaApp(dossier);
      else {
        app = new Koa();
        app.use(koaRouter(dossier, { prefix }).routes());
      }
      app.proxy = trustProxy;
      server = createServer(app.callback());
      break;
    }
    case 'express': {
      const app = expressVersion === 4 ? express4() : express();
      app.disable('x-powered-by');
      // `app.use('/dossier', …)` matches the prefix case-sensitively then, as every other mount does.
      app.set('case sensitive routing', true);
      if (prefix === '') app.use(expressRouter(dossier, { trustProxy }));
      else app.use(prefix, expressRouter(dossier, { trustProxy }));
      server = createServer(app);
      break;
    }
    case 'fastify': {
      const app = Fastify({ clientErrorHandler: answerClientError, frameworkErrors: answerFrameworkError });
      await app.register(dossierPlugin, { dossier, prefix, trustProxy });
      await app.ready();
      server = app.server as Server;
      stop = () => app.close();
      break;
    }
    case 'fetch': {
      const handle = createFetchHandler(dossier, { prefix, trustProxy });
      // @hono/node-server's listener on a Node server, so that a request it can make no Request of gets
      // Dossier's JSON (its errorHandler).
      const fetchCallback = (request: Request, env: { incoming: { url?: string; socket: { remoteAddress?: string } } }) =>
        handle(request, { address: env.incoming.socket.remoteAddress, target: env.incoming.url });
      server = createServer(getRequestListener(fetchCallback, { errorHandler: answerRequestError }));
      break;
    }
  }
  answerClientErrorsWithJson(server);
  server.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await stop();
    },
  };
}
