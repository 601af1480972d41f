import { Type, type TSchema } from '@sinclair/typebox';
import type { NewWatch } from '../../lib/index.js';
import { WatchCreate } from '../../lib/internal.js';
import { DossierError } from '../../lib/index.js';
import { jsonObject, readText } from './body.js';
import { keyOf, type Call, type Route } from './route.js';
import { settleMetered } from './lookups.js';
import { type ResponseSpec, type RouteSpec, defineLookupRoute, MAYBE_QUOTA, QUOTA } from './schemas/define.js';
import { apiError, ApiErrorWith, ApiValidationError, Exact, INTERNAL, unauthenticated } from './schemas/shapes.js';
import { CreatedWatch, DeliveryData, WatchData, wireDelivery, wireWatch, wireWatchErrors } from './watch-shapes.js';

// Interface A's watches (docs/contract.md §11): the key's owner creates, lists, reads, removes and checks
// watches, rotates their secrets, and reads their deliveries. Only an on-demand check counts against
// the daily quota, and answers with the quota headers; the rules (fields, limit per key, owner
// isolation, what a check costs) live in `dossier.watches` and `dossier.metering`.

const success = (data: TSchema, title: string) => Exact({ status: Type.Literal('success'), data }, { title });

/** What every watch route may answer besides its success. */
const COMMON: Record<number, ResponseSpec> = {
  401: unauthenticated,
  403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope']),
  500: INTERNAL,
  503: apiError('The store is down.', ['service_unavailable'], { 'Retry-After': true }),
};
const NOT_FOUND = apiError("No such watch among the owner's.", ['not_found']);
const ID = Type.Object({ id: Type.String({ description: 'the watch id, wat_…' }) });

/** The owner of the call's key, as the watch service takes it. */
const ownerOf = (call: Call) => ({ owner: keyOf(call).owner });

/** The watch id of the path. */
const idOf = (call: Call): string => call.params.id ?? '';

/** The page a list of watches is asked for (docs/contract.md §5, §11). */
const PAGE_QUERY = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'watches in the page' })),
  cursor: Type.Optional(Type.String({ description: "where the page starts: the previous page's `meta.next_cursor`" })),
});

/** The page of the query string, or a 400 `invalid_request` for a bad `limit` or `cursor`. */
export function pageOf(query: string): { limit: number; cursor?: string } {
  const params = new URLSearchParams(query);
  const limit = params.get('limit') ?? '100';
  const cursor = params.get('cursor');
  if (!/^[1-9]\d{0,2}$/.test(limit) || Number(limit) > 500) {
    throw new DossierError('ERR_WATCH_INVALID', '`limit` must be an integer from 1 to 500.');
  }
  if (cursor === '') throw new DossierError('ERR_WATCH_INVALID', '`cursor` must be one a page gave.');
  return { limit: Number(limit), ...(cursor === null ? {} : { cursor }) };
}

/** The body of a page of watches. */
const WatchPage = Exact(
  {
    status: Type.Literal('success'),
    data: Type.Array(WatchData),
    meta: Type.Object({
      total: Type.Integer({ minimum: 0, description: 'how many watches the owner has: exact' }),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'the cursor of the next page; null on the last' }),
    }),
  },
  { title: 'WatchList' },
);

/** A route of watches: listed under Lookups, for a key with the `lookup` scope, with the answers every one may give. */
const watchRoute = (
  { tool, ...spec }: Omit<RouteSpec, 'tag' | 'auth' | 'scope'> & Pick<Route, 'tool'>,
  handle: Route['handle'],
): Route => ({
  ...defineLookupRoute({ ...spec, responses: { ...spec.responses, ...COMMON } }),
  tool,
  handle,
});

/** The routes of watches (docs/contract.md §11); only an on-demand check counts against the daily quota. */
export const WATCH_ROUTES: readonly Route[] = [
  watchRoute(
    {
      method: 'post',
      path: '/api/watches',
      operationId: 'createWatch',
      tool: 'watch_create',
      summary: 'Watch a certificate, a registration or DNS records, and be told by signed webhook',
      description:
        'The first check runs within seconds and sets the baseline. Deliveries are signed as the Standard Webhooks ' +
        'specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`), with the secret shown here once.',
      body: { schema: WatchCreate, types: ['application/json'], required: true },
      responses: {
        201: { description: 'The watch and its signing secret.', body: success(CreatedWatch, 'WatchCreated') },
        400: {
          description: 'A bad body (`errors` names each field at fault), or the key holds its most watches.',
          body: Type.Union([ApiValidationError, ApiErrorWith('invalid_request')]),
        },
        413: apiError('The body, decoded, is larger than 64 KiB.', ['payload_too_large']),
        415: apiError('A `Content-Encoding` other than gzip, deflate or br.', ['unsupported_encoding']),
      },
    },
    async (call) => {
      const key = keyOf(call);
      const body = jsonObject(await readText(call.request), 'ERR_WATCH_INVALID');
      const { watch, secret } = await call.dossier.watches
        .create(
          // As sent: the service checks every field, whatever its type.
          {
            type: body.type as NewWatch['type'],
            domain: body.domain as NewWatch['domain'],
            webhookUrl: body.webhook_url as NewWatch['webhookUrl'],
            intervalSeconds: body.interval_seconds as NewWatch['intervalSeconds'],
            keyId: key.id,
            owner: key.owner,
          },
          { webhookRequired: true },
        )
        .catch((error: unknown) => {
          throw wireWatchErrors(error);
        });
      call.reply.json({ status: 'success', data: { ...wireWatch(watch), secret } }, 201);
    },
  ),
  watchRoute(
    {
      method: 'get',
      path: '/api/watches',
      operationId: 'listWatches',
      tool: 'watches_list',
      summary: "The owner's watches, newest first, a page at a time",
      query: PAGE_QUERY,
      responses: {
        200: { description: 'A page of the watches, with their total.', body: WatchPage },
        400: apiError('A bad `limit` or `cursor`.', ['invalid_request']),
      },
    },
    async (call) => {
      const page = await call.dossier.watches.page(pageOf(call.query), ownerOf(call));
      call.reply.json({
        status: 'success',
        data: page.items.map(wireWatch),
        meta: { total: page.total, next_cursor: page.nextCursor },
      });
    },
  ),
  watchRoute(
    {
      method: 'get',
      path: '/api/watches/:id',
      operationId: 'getWatch',
      tool: 'watch_get',
      summary: 'One watch',
      params: ID,
      responses: { 200: { description: 'The watch.', body: success(WatchData, 'WatchAnswer') }, 404: NOT_FOUND },
    },
    async (call) => {
      call.reply.json({ status: 'success', data: wireWatch(await call.dossier.watches.get(idOf(call), ownerOf(call))) });
    },
  ),
  watchRoute(
    {
      method: 'delete',
      path: '/api/watches/:id',
      operationId: 'deleteWatch',
      tool: 'watch_delete',
      summary: 'Remove a watch: no check and no delivery after it',
      params: ID,
      responses: { 204: { description: 'Removed.' }, 404: NOT_FOUND },
    },
    async (call) => {
      await call.dossier.watches.remove(idOf(call), ownerOf(call));
      call.reply.empty(204);
    },
  ),
  {
    ...defineLookupRoute({
      method: 'post',
      path: '/api/watches/:id/check',
      operationId: 'checkWatch',
      summary: 'Run a check now, beside the schedule',
      description:
        "Counts as one lookup of the watch's type against the key's daily quota. While an on-demand check of the watch " +
        'is pending or running, another one answers 202 and starts nothing, and counts nothing.',
      params: ID,
      responses: {
        202: {
          description: 'The check is on its way (or one already was).',
          body: success(WatchData, 'WatchCheckAccepted'),
          headers: QUOTA,
        },
        401: unauthenticated,
        403: apiError('The key lacks the `lookup` scope.', ['insufficient_scope'], MAYBE_QUOTA),
        404: apiError("No such watch among the owner's.", ['not_found'], MAYBE_QUOTA),
        429: apiError('The key has used its daily quota: nothing runs.', ['quota_exceeded'], { ...QUOTA, 'Retry-After': true }),
        500: INTERNAL,
        503: apiError('The store is down.', ['service_unavailable'], { 'Retry-After': true, ...MAYBE_QUOTA }),
      },
    }),
    // Counted against the daily quota, as a lookup of the watch's type: the key is metering's to check.
    metered: true,
    tool: 'watch_check',
    async handle(call) {
      const watch = settleMetered(call, await call.dossier.metering.checkWatch(call.secret, idOf(call)));
      call.reply.json({ status: 'success', data: wireWatch(watch) }, 202);
    },
  },
  watchRoute(
    {
      method: 'post',
      path: '/api/watches/:id/secret',
      operationId: 'rotateWatchSecret',
      summary: 'Give the watch a new signing secret',
      description:
        'The new secret is shown this once. For the next 24 hours each delivery carries both signatures ' +
        '(`webhook-signature: v1,<new> v1,<old>`), then only the new one.',
      params: ID,
      responses: {
        200: { description: 'The watch and its new signing secret.', body: success(CreatedWatch, 'WatchSecretRotated') },
        404: NOT_FOUND,
      },
    },
    async (call) => {
      const { watch, secret } = await call.dossier.watches.rotateSecret(idOf(call), ownerOf(call));
      call.reply.json({ status: 'success', data: { ...wireWatch(watch), secret } });
    },
  ),
  watchRoute(
    {
      method: 'get',
      path: '/api/watches/:id/deliveries',
      operationId: 'listWatchDeliveries',
      summary: 'The last 50 deliveries of a watch, newest first',
      params: ID,
      responses: {
        200: { description: 'The deliveries.', body: success(Type.Array(DeliveryData), 'DeliveryList') },
        404: NOT_FOUND,
      },
    },
    async (call) => {
      const deliveries = await call.dossier.watches.deliveries(idOf(call), ownerOf(call));
      call.reply.json({ status: 'success', data: deliveries.map(wireDelivery) });
    },
  ),
];
