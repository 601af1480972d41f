import type { AddressInfo } from 'node:net';
import express from 'express';

// A baseline of `npm run bench`, in a process of its own as Dossier is: a bare Express app answering the
// JSON body it is given (BENCH_BODY), the same body the measured route answers, on a free port.
const body: unknown = JSON.parse(process.env.BENCH_BODY ?? '{}');
const app = express();
app.disable('x-powered-by');
app.use((_request, response) => {
  response.json(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
