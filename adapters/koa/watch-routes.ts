import type Router from '@koa/router';
import type { Context } from 'koa';
import { type ApiKey, type Dossier, wireDelivery, wireWatch } from '../../lib/index.js';
import { authenticate, bearerSecret } from './auth.js';
import { settleMetered } from './lookup-routes.js';
import { jsonObject, readText } from './request-body.js';

/**
 * Interface A's watches (CONTRACT.md §11): the key's owner creates, lists, reads, removes and checks
 * watches, rotates their secrets, and reads their deliveries. Only an on-demand check counts against
 * the daily quota, and answers with the quota headers; the rules (fields, limit per key, owner
 * isolation, what a check costs) live in `dossier.watches` and `dossier.metering`.
 */
export function addWatchRoutes(router: Router, dossier: Dossier): void {
  const withKey = (handler: (ctx: Context, key: ApiKey) => Promise<void>) => async (ctx: Context) =>
    handler(ctx, await authenticate(ctx, dossier, 'lookup'));
  const id = (ctx: Context): string => ctx.params.id ?? '';

  router.post(
    '/api/watches',
    withKey(async (ctx, key) => {
      const body = jsonObject(await readText(ctx), 'ERR_WATCH_INVALID');
      const { watch, secret } = await dossier.watches.create(
        {
          type: body.type,
          domain: body.domain,
          webhookUrl: body.webhook_url,
          intervalSeconds: body.interval_seconds,
          keyId: key.id,
          owner: key.owner,
        },
        { webhookRequired: true },
      );
      ctx.status = 201;
      ctx.body = { status: 'success', data: { ...wireWatch(watch), secret } };
    }),
  );
  router.get(
    '/api/watches',
    withKey(async (ctx, key) => {
      ctx.body = { status: 'success', data: (await dossier.watches.list({ owner: key.owner })).map(wireWatch) };
    }),
  );
  router.get(
    '/api/watches/:id',
    withKey(async (ctx, key) => {
      ctx.body = { status: 'success', data: wireWatch(await dossier.watches.get(id(ctx), { owner: key.owner })) };
    }),
  );
  router.delete(
    '/api/watches/:id',
    withKey(async (ctx, key) => {
      await dossier.watches.remove(id(ctx), { owner: key.owner });
      ctx.status = 204;
    }),
  );
  router.post('/api/watches/:id/check', async (ctx) => {
    const watch = settleMetered(ctx, dossier, await dossier.metering.checkWatch(bearerSecret(ctx), id(ctx)));
    ctx.status = 202;
    ctx.body = { status: 'success', data: wireWatch(watch) };
  });
  router.post(
    '/api/watches/:id/secret',
    withKey(async (ctx, key) => {
      const { watch, secret } = await dossier.watches.rotateSecret(id(ctx), { owner: key.owner });
      ctx.body = { status: 'success', data: { ...wireWatch(watch), secret } };
    }),
  );
  router.get(
    '/api/watches/:id/deliveries',
    withKey(async (ctx, key) => {
      ctx.body = { status: 'success', data: (await dossier.watches.deliveries(id(ctx), { owner: key.owner })).map(wireDelivery) };
    }),
  );
}
