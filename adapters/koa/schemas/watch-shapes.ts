import { Type, type TSchema } from '@sinclair/typebox';
import { WATCH_EVENTS, WATCH_TYPES, WatchCreate } from '../../../lib/index.js';
import { type ResponseSpec, type RouteSpec, defineLookupRoute, MAYBE_QUOTA, QUOTA } from './define.js';
import { apiError, ApiErrorWith, ApiValidationError, Exact, INTERNAL, IsoDate, Nullable, unauthenticated } from './shapes.js';

/** A watch on the wire (CONTRACT.md §11). */
export const WatchData = Exact(
  {
    id: Type.String(),
    type: Type.Union(WATCH_TYPES.map((type) => Type.Literal(type))),
    domain: Type.String(),
    webhook_url: Nullable(Type.String()),
    interval_seconds: Type.Integer(),
    created_at: IsoDate,
    last_checked_at: Nullable(IsoDate),
    next_check_at: IsoDate,
    last_error: Nullable(Type.String()),
  },
  { title: 'Watch' },
);

/** A watch just created, with its signing secret shown this once. */
const CreatedWatch = Exact(
  { ...WatchData.properties, secret: Type.String({ pattern: '^whsec_', description: 'the signing secret, shown this once' }) },
  { title: 'CreatedWatch' },
);

/** A delivery on the wire. */
export const DeliveryData = Exact(
  {
    id: Type.String({ description: 'the webhook-id of every attempt' }),
    event: Type.Union(WATCH_EVENTS.map((event) => Type.Literal(event))),
    created_at: IsoDate,
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer({ minimum: 0 }),
    response_status: Nullable(Type.Integer()),
    next_attempt_at: Nullable(IsoDate),
  },
  { title: 'Delivery' },
);

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

const watchRoute = (spec: Omit<RouteSpec, 'tag' | 'auth' | 'scope'>): RouteSpec =>
  defineLookupRoute({ ...spec, responses: { ...spec.responses, ...COMMON } });

/** The routes of watches (CONTRACT.md §11); only an on-demand check counts against the daily quota. */
export const WATCH_ROUTES: readonly RouteSpec[] = [
  watchRoute({
    method: 'post',
    path: '/api/watches',
    operationId: 'createWatch',
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
      413: apiError('The body is larger than 64 KiB.', ['bad_request']),
    },
  }),
  watchRoute({
    method: 'get',
    path: '/api/watches',
    operationId: 'listWatches',
    summary: "The owner's watches, newest first",
    responses: { 200: { description: 'The watches.', body: success(Type.Array(WatchData), 'WatchList') } },
  }),
  watchRoute({
    method: 'get',
    path: '/api/watches/:id',
    operationId: 'getWatch',
    summary: 'One watch',
    params: ID,
    responses: { 200: { description: 'The watch.', body: success(WatchData, 'WatchAnswer') }, 404: NOT_FOUND },
  }),
  watchRoute({
    method: 'delete',
    path: '/api/watches/:id',
    operationId: 'deleteWatch',
    summary: 'Remove a watch: no check and no delivery after it',
    params: ID,
    responses: { 204: { description: 'Removed.' }, 404: NOT_FOUND },
  }),
  defineLookupRoute({
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
  watchRoute({
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
  }),
  watchRoute({
    method: 'get',
    path: '/api/watches/:id/deliveries',
    operationId: 'listWatchDeliveries',
    summary: 'The last 50 deliveries of a watch, newest first',
    params: ID,
    responses: {
      200: { description: 'The deliveries.', body: success(Type.Array(DeliveryData), 'DeliveryList') },
      404: NOT_FOUND,
    },
  }),
];
