import type { Delivery, Watch } from '../ports/watches.js';

// The JSON of watches and deliveries as CONTRACT.md §11 writes them (snake_case; a watch's key and
// owner stay inside), for every adapter: the HTTP API, the CLI and the panel.

/** A watch as CONTRACT.md §11 shows it. */
export function wireWatch(watch: Watch): Record<string, unknown> {
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

/** A delivery as CONTRACT.md §11 shows it. */
export function wireDelivery(delivery: Delivery): Record<string, unknown> {
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
