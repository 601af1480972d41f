// Mounting Dossier's routes in a Koa app you already have, beside your own routes.
// Run: npm run build && node dist/examples/mount-router.js   (then curl http://127.0.0.1:3001/health)
import Koa from 'koa';
import Router from '@koa/router';
import type { Server } from 'node:http';
import { createDossierRouter, errorMiddleware } from '../adapters/koa/index.js';
import { createDossier, type Dossier } from '../lib/index.js';

/** Your app: a health route of its own, and Dossier's API under the same server. */
export function createApp(dossier: Dossier): Koa {
  const app = new Koa();
  const own = new Router();
  own.get('/health', (ctx) => {
    ctx.body = { ok: true };
  });
  app.use(errorMiddleware(dossier.options.logger));
  app.use(own.routes());
  app.use(createDossierRouter(dossier).routes());
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dossier = createDossier({ store: 'memory://' });
  const { secret } = await dossier.keys.create({ name: 'example' });
  const server: Server = createApp(dossier).listen(3001, '127.0.0.1');
  console.log(
    `listening on http://127.0.0.1:3001; try: curl -H "Authorization: Bearer ${secret}" 'http://127.0.0.1:3001/api/dns?domain=example.com'`,
  );
  process.once('SIGINT', () => server.close(() => void dossier.close()));
}
