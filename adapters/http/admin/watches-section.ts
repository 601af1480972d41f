import type { Delivery, DeliveryStatus, Dossier, Watch } from '../../../lib/index.js';
import { escapeHtml } from '../escape.js';
import { time } from './page.js';

/** The deliveries of each watch the key detail shows, the newest. */
const DELIVERIES_SHOWN = 5;

/** A watch of the key, with its newest deliveries. */
export interface KeyWatch {
  watch: Watch;
  deliveries: Delivery[];
}

/** The watches the key created, newest first, each with its newest deliveries. */
export async function keyWatches(dossier: Dossier, key: { id: string; owner: string }): Promise<KeyWatch[]> {
  const watches = await dossier.watches.ofKey(key.id);
  return Promise.all(
    watches.map(async (watch) => ({
      watch,
      deliveries: (await dossier.watches.deliveries(watch.id, { owner: key.owner })).slice(0, DELIVERIES_SHOWN),
    })),
  );
}

/** The badge colour of each delivery status (the key statuses' colours: green, amber, red). */
const STATUS_BADGE: Record<DeliveryStatus, string> = { delivered: 'active', pending: 'expired', failed: 'revoked' };

/**
 * The key detail's card of watches: what each watches, its last check, its last deliveries, and a
 * Remove button (which asks for confirmation, then removes it through the admin API).
 */
export function watchesSection(watches: KeyWatch[]): string {
  const rows =
    watches.length === 0
      ? '<tr class="empty"><td colspan="5">This key watches nothing. Watches are created with POST /api/watches.</td></tr>'
      : watches.map(watchRow).join('\n');
  return `<section class="card" aria-labelledby="watches-title">
<h2 id="watches-title">Watches <span class="muted" data-watch-count>${watches.length}</span></h2>
<p class="alert error" role="alert" data-form-error hidden></p>
<div class="table-wrap">
<table class="watches">
<thead><tr><th scope="col">Watch</th><th scope="col">Every</th><th scope="col">Last check</th><th scope="col">Last deliveries</th><td class="actions"><span class="visually-hidden">Actions</span></td></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</div>
</section>`;
}

function watchRow({ watch, deliveries }: KeyWatch): string {
  const checked =
    watch.lastCheckedAt === null
      ? 'not yet'
      : `${time(watch.lastCheckedAt)}${watch.lastError === null ? ' <span class="badge active">ok</span>' : ` <span class="badge revoked">failed</span><span class="sub">${escapeHtml(watch.lastError)}</span>`}`;
  const sent =
    deliveries.length === 0
      ? '<span class="muted">no deliveries yet</span>'
      : `<ul class="deliveries">${deliveries.map(deliveryItem).join('')}</ul>`;
  const name = `${watch.type} ${watch.domain}`;
  const remove = `<button type="button" class="button danger small" data-action="remove-watch" data-id="${escapeHtml(watch.id)}" data-name="${escapeHtml(name)}">Remove</button>`;
  return `<tr data-id="${escapeHtml(watch.id)}"><th scope="row">${escapeHtml(watch.type)} ${escapeHtml(watch.domain)}<span class="sub mono">${escapeHtml(watch.id)}</span><span class="sub">${escapeHtml(watch.webhookUrl ?? 'in-process only')}</span></th><td class="every">every ${every(watch.intervalSeconds)}</td><td>${checked}</td><td>${sent}</td><td class="actions">${remove}</td></tr>`;
}

function deliveryItem(delivery: Delivery): string {
  const answer = delivery.responseStatus === null ? 'no answer' : `HTTP ${delivery.responseStatus}`;
  const tries = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  return `<li>${escapeHtml(delivery.event)} <span class="badge ${STATUS_BADGE[delivery.status]}">${delivery.status}</span><span class="sub">${time(delivery.createdAt)} · ${tries} · ${answer}</span></li>`;
}

/** `15 min`, `1 h`, `1 d` or `90 s`. */
function every(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
