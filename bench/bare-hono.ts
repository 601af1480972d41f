import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

// A baseline of `npm run bench`, in a process of its own as Dossier is: a bare Hono app on Node
// (@hono/node-server) answering the JSON body it is given (BENCH_BODY), the same body the measured route
// answers, on a free port.
const body = JSON.parse(process.env.BENCH_BODY ?? '{}') as object;
const app = new Hono();
app.all('*', (c) => c.json(body));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
