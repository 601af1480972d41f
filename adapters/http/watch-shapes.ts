import { Type, type Static } from '@sinclair/typebox';
import { type Delivery, DossierValidationError, WATCH_EVENTS, WATCH_TYPES, type Watch } from '../../lib/index.js';
import { Exact, IsoDate, Nullable } from './schemas/shapes.js';

// A watch and a delivery on the wire (docs/contract.md §11): their schemas, and the one place where each
// becomes its wire shape, for the API, the panel and the CLI alike (a watch's key and owner stay inside).

/** A watch on the wire (docs/contract.md §11). */
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
export const CreatedWatch = Exact(
  { ...WatchData.properties, secret: Type.String({ pattern: '^whsec_', description: 'the signing secret, shown this once' }) },
  { title: 'CreatedWatch' },
);

/** A watch as docs/contract.md §11 shows it (its key and owner stay inside). */
export function wireWatch(watch: Watch): Static<typeof WatchData> {
  return {
    id: watch.id,
    type: watch.type,
    domain: watch.domain,
    webhook_url: watch.webhookUrl,
    interval_seconds: watch.intervalSeconds,
    created_at: watch.createdAt,
    last_checked_at: watch.lastCheckedAt,
    next_check_at: watch.nextCheckAt,
    last_error: watch.lastError,
  };
}

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

/** A delivery as docs/contract.md §11 shows it. */
export function wireDelivery(delivery: Delivery): Static<typeof DeliveryData> {
  return {
    id: delivery.id,
    event: delivery.event,
    created_at: delivery.createdAt,
    status: delivery.status,
    attempts: delivery.attempts,
    response_status: delivery.responseStatus,
    next_attempt_at: delivery.nextAttemptAt,
  };
}

/** The wire's names of a new watch's fields, by the library's. */
const WIRE_FIELDS: Readonly<Record<string, string>> = { webhookUrl: 'webhook_url', intervalSeconds: 'interval_seconds' };

/** A refused new watch with its fields named as the wire names them; any other error as it is. */
export function wireWatchErrors(error: unknown): unknown {
  if (!(error instanceof DossierValidationError)) return error;
  const errors = Object.fromEntries(
    Object.entries(error.errors).map(([field, problems]) => [WIRE_FIELDS[field] ?? field, problems]),
  );
  return new DossierValidationError(error.code, errors, error.message);
}
