import type { WhoisData } from '../../ports/lookup-service.js';
import { daysRemaining } from '../../lookup/ssl/describe-certificate.js';
import { canonicalSet, remember, thresholdToAnnounce, type Detection, type FoundEvent, type WatchMemory } from './detection.js';

/** Days before `expiresAt` within which `whois.expiring` is announced. */
export const WHOIS_THRESHOLDS = [30, 7, 1] as const;

const DAY_MS = 86_400_000;

/**
 * What a whois watch remembers of the last registration, the sets in one order. Kept in the watch
 * record with the wire's names (a record written by an older version reads the same), which are also
 * the names `whois.changed` gives its changes.
 */
interface WhoisSnapshot {
  registrar: string | null;
  expires_at: string | null;
  name_servers: string[];
  status: string[];
}

/**
 * The events of one successful whois check (docs/contract.md §11): `whois.expiring` once per threshold and
 * `expires_at`, `whois.changed` when the registrar, `expires_at`, or the set of name servers or of
 * status changed since the last check (never at the first).
 * @param now ms since the epoch, from the Clock
 */
export function detectWhois(memory: WatchMemory, data: WhoisData, now: number): Detection {
  const previous = memory.snapshot as WhoisSnapshot | null;
  const current: WhoisSnapshot = {
    registrar: data.registrar,
    expires_at: data.expiresAt,
    name_servers: canonicalSet(data.nameServers),
    status: canonicalSet(data.status),
  };
  const events: FoundEvent[] = [];
  let announced = memory.announced;
  if (data.expiresAt !== null) {
    const expires = Date.parse(data.expiresAt);
    const threshold = thresholdToAnnounce(announced, data.expiresAt, WHOIS_THRESHOLDS, (t) => expires - now <= t * DAY_MS);
    if (threshold !== undefined) {
      announced = remember(announced, data.expiresAt, threshold);
      events.push({
        type: 'whois.expiring',
        data: { threshold, expires_at: data.expiresAt, days_remaining: daysRemaining(expires, now) },
      });
    }
  }
  if (previous !== null) {
    const changes: Record<string, { before: unknown; after: unknown }> = {};
    for (const field of ['registrar', 'expires_at', 'name_servers', 'status'] as const) {
      if (JSON.stringify(previous[field]) !== JSON.stringify(current[field])) {
        changes[field] = { before: previous[field], after: current[field] };
      }
    }
    if (Object.keys(changes).length > 0) events.push({ type: 'whois.changed', data: { changes } });
  }
  return { events, snapshot: { ...current }, announced };
}
