// An Express app of your own, with a route of its own and Dossier mounted at its root (or under PREFIX,
// as `PREFIX=/dossier`), served as `dossier serve` serves: configured from the environment (every DOSSIER_* variable, HOST, PORT), one
// JSON log line per request on standard error, a graceful stop on SIGTERM.
// Run: npm run build && node dist/examples/serve-express.js   (then curl http://127.0.0.1:3000/health)
import { createServer } from 'node:http';
import express from 'express';
import { serve } from '../adapters/serve/index.js'; // dossier/serve
import { createDossierRouter } from '../adapters/express/index.js'; // dossier/express

process.exitCode = await serve(({ dossier, settings }) => {
  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_request, response) => {
    response.json({ ok: true });
  });
  // Last, and before any body parser of yours: Dossier reads its own bodies, and answers every other path.
  // (The `prefix` option matches paths as sent, case-sensitively, as every mount does.)
  app.use(createDossierRouter(dossier, { trustProxy: settings.trustProxy, prefix: process.env.PREFIX }));
  return createServer(app);
});
// A store whose server froze may never confirm its close: the process ends anyway, as `dossier serve` does.
process.exit();
