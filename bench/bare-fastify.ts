import Fastify from 'fastify';

// A baseline of `npm run bench`, in a process of its own as Dossier is: a bare Fastify app answering the
// JSON body it is given (BENCH_BODY), the same body the measured route answers, on a free port.
const body: unknown = JSON.parse(process.env.BENCH_BODY ?? '{}');
const app = Fastify();
app.all('/*', async () => body);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
