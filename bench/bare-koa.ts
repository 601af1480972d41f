import Koa from 'koa';
import type { AddressInfo } from 'node:net';

// A baseline of `npm run bench`, in a process of its own as Dossier is: a bare Koa app answering the
// JSON body it is given (BENCH_BODY), the same body the measured route answers, on a free port.
const body: unknown = JSON.parse(process.env.BENCH_BODY ?? '{}');
const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
