// A Hono app of your own on Node, with a route of its own and Dossier's fetch handler mounted at its
// root, served as `dossier serve` serves: configured from the environment (every DOSSIER_* variable,
// HOST, PORT), one JSON log line per request on standard error, a graceful stop on SIGTERM. The same
// handler serves Next.js route handlers, Bun and Deno: `(request) => handle(request)`.
// Run: npm run build && node dist/examples/serve-hono.js   (then curl http://127.0.0.1:3000/health)
import type { Server } from 'node:http';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { serve } from '../adapters/serve/index.js'; // dossier/serve
import { createFetchHandler } from '../adapters/fetch/index.js'; // dossier/fetch

process.exitCode = await serve(({ dossier, settings }) => {
  const handle = createFetchHandler(dossier, { trustProxy: settings.trustProxy });
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/health', (c) => c.json({ ok: true }));
  // Every other path is Dossier's; the client's address is the panel's sign-in lock-out's.
  app.all('*', (c) => handle(c.req.raw, { address: c.env.incoming.socket.remoteAddress }));
  return createAdaptorServer({ fetch: app.fetch }) as Server;
});
// A store whose server froze may never confirm its close: the process ends anyway, as `dossier serve` does.
process.exit();
