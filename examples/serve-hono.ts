// A Hono app of your own on Node, with a route of its own and Dossier's fetch handler mounted at its
// root (or under PREFIX, as `PREFIX=/dossier`), served as `dossier serve` serves: configured from the
// environment (every DOSSIER_* variable, HOST, PORT), one JSON log line per request on standard error, a
// graceful stop on SIGTERM. The same handler serves Next.js route handlers, Bun and Deno:
// `(request) => handle(request)`.
// Run: npm run build && node dist/examples/serve-hono.js   (then curl http://127.0.0.1:3000/health)
import { createServer } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { serve } from '../adapters/serve/index.js'; // dossier/serve
import { answerRequestError, createFetchHandler } from '../adapters/fetch/index.js'; // dossier/fetch

process.exitCode = await serve(({ dossier, settings }) => {
  const prefix = process.env.PREFIX ?? '';
  const handle = createFetchHandler(dossier, { trustProxy: settings.trustProxy, prefix });
  const app = new Hono<{ Bindings: HttpBindings }>({
    // Routes on the path as the client sent it: a Request's URL has its dot segments resolved
    // (`/dossier/../health` is `/health`), which would carry a request across the prefix.
    getPath: (request, options) =>
      ((options?.env as HttpBindings | undefined)?.incoming.url ?? new URL(request.url).pathname).split('?', 1)[0]!,
  });
  app.get('/health', (c) => c.json({ ok: true }));
  // Every other path (under a prefix, every path below it) is Dossier's, given as sent; the client's
  // address is the panel's sign-in lock-out's.
  for (const path of prefix === '' ? ['*'] : [prefix, `${prefix}/*`]) {
    app.all(path, (c) => handle(c.req.raw, { address: c.env.incoming.socket.remoteAddress, target: c.env.incoming.url }));
  }
  // A request the listener can make no Request of (`OPTIONS *`, a bad Host) gets Dossier's JSON 400.
  return createServer(getRequestListener(app.fetch, { errorHandler: answerRequestError }));
});
// A store whose server froze may never confirm its close: the process ends anyway, as `dossier serve` does.
process.exit();
