// A Fastify app of your own, with a route of its own and Dossier registered at its root (or under
// PREFIX, as `PREFIX=/dossier`), served as `dossier serve` serves: configured from the environment (every DOSSIER_* variable, HOST, PORT), one
// JSON log line per request on standard error, a graceful stop on SIGTERM.
// Run: npm run build && node dist/examples/serve-fastify.js   (then curl http://127.0.0.1:3000/health)
import type { Server } from 'node:http';
import Fastify from 'fastify';
import { serve } from '../adapters/serve/index.js'; // dossier/serve
import { answerClientError, answerFrameworkError, dossierPlugin } from '../adapters/fastify/index.js'; // dossier/fastify

process.exitCode = await serve(async ({ dossier, settings }) => {
  // Requests Node cannot even read, and those Fastify's router refuses itself (`/%zz`), are answered in
  // Dossier's JSON, as by its other servers.
  const app = Fastify({ clientErrorHandler: answerClientError, frameworkErrors: answerFrameworkError });
  app.get('/health', async () => ({ ok: true }));
  // Every other path (under a prefix, every path below it).
  await app.register(dossierPlugin, { dossier, trustProxy: settings.trustProxy, prefix: process.env.PREFIX });
  await app.ready();
  return app.server as Server;
});
// A store whose server froze may never confirm its close: the process ends anyway, as `dossier serve` does.
process.exit();
