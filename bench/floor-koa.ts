import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { createDossier } from '../lib/dossier.js';
import { optionsFromEnv } from '../lib/options.js';

// A floor of `npm run bench`, in a process of its own as Dossier is: a bare Koa app that makes the very
// library calls one of Dossier's routes makes (BENCH_FLOOR: `lookup` for GET /api/dns, `read` for GET
// /api/v1/documents/{id}, `create` for POST /api/v1/documents), configured from the environment as
// `dossier serve` is, and nothing else: no request id, no quota headers, no log line, no error map, no
// router. What it costs over bare Koa is what the store and the core cost; Dossier's route cannot be
// cheaper than this.
const floor = process.env.BENCH_FLOOR;
const dossier = createDossier(optionsFromEnv(process.env));
await dossier.ready();
const app = new Koa();
app.use(async (ctx) => {
  const secret = ctx.get('Authorization').slice('Bearer '.length);
  if (floor === 'lookup') {
    const outcome = await dossier.metering.lookup(secret, 'dns', ctx.query.domain);
    if (!outcome.ok) throw outcome.error;
    ctx.body = { status: 'success', data: outcome.value.data, cached: outcome.value.cached };
    return;
  }
  const key = await dossier.metering.authenticate(secret, 'documents');
  if (floor === 'read') {
    ctx.body = {
      data: await dossier.documents.get(key.owner, Number(ctx.path.slice(ctx.path.lastIndexOf('/') + 1))),
      status: 200,
    };
    return;
  }
  let text = '';
  for await (const chunk of ctx.req) text += String(chunk);
  const form = new URLSearchParams(text);
  const input = {
    name: form.get('name') ?? '',
    prompt: form.get('prompt') ?? '',
    templateId: Number(form.get('template_id') ?? 1),
    creativity: Number(form.get('creativity') ?? 0.5),
  };
  ctx.status = 201;
  ctx.body = { data: await dossier.documents.create(key.owner, input), status: 201 };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => void dossier.close().then(() => process.exit(0))));
