// A Koa app of your own, with a route of its own and Dossier mounted at its root (or under PREFIX, as
// `PREFIX=/dossier`), served as `dossier serve` serves: configured from the environment (every DOSSIER_*
// variable, HOST, PORT), one JSON log line per request on standard error, a graceful stop on SIGTERM.
// Run: npm run build && node dist/examples/serve-koa.js   (then curl http://127.0.0.1:3000/health)
import { createServer } from 'node:http';
import Koa from 'koa';
import { serve } from '../adapters/serve/index.js'; // dossier/serve
import { createDossierRouter } from '../adapters/koa/index.js'; // dossier/koa

process.exitCode = await serve(({ dossier, settings }) => {
  const app = new Koa();
  app.proxy = settings.trustProxy; // DOSSIER_TRUST_PROXY: believe the X-Forwarded-* of a proxy in front
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/health') ctx.body = { ok: true };
    else await next();
  });
  // Last: every other path is Dossier's (under a prefix, every path below it).
  app.use(createDossierRouter(dossier, { prefix: process.env.PREFIX }).routes());
  return createServer(app.callback());
});
// A store whose server froze may never confirm its close: the process ends anyway, as `dossier serve` does.
process.exit();
