import type { SslData } from '../../ports/lookup-service.js';
import { daysRemaining } from '../../lookup/ssl/describe-certificate.js';
import { remember, thresholdToAnnounce, type Detection, type FoundEvent, type WatchMemory } from './detection.js';

/** The leaf's `daysRemaining` at or under which `ssl.expiring` is announced. */
export const SSL_THRESHOLDS = [30, 14, 7, 1] as const;

/**
 * What an SSL watch remembers of the last certificate. Kept in the watch record with the wire's names
 * (a record written by an older version reads the same) and shown as it is in `ssl.changed`.
 */
interface SslSnapshot {
  fingerprint_sha256: string;
  valid_to: string;
  issuer: SslData['issuer'];
  is_valid: boolean;
}

/**
 * The events of one successful SSL check (docs/contract.md §11): `ssl.expiring` once per threshold and
 * certificate, `ssl.changed` when the leaf differs from the last check's (never at the first),
 * `ssl.invalid` when `isValid` turned false or is false at the first check.
 * @param now ms since the epoch, from the Clock
 */
export function detectSsl(memory: WatchMemory, data: SslData, now: number): Detection {
  const previous = memory.snapshot as SslSnapshot | null;
  const current: SslSnapshot = {
    fingerprint_sha256: data.fingerprintSha256,
    valid_to: data.validTo,
    issuer: data.issuer,
    is_valid: data.isValid,
  };
  const events: FoundEvent[] = [];
  const days = daysRemaining(Date.parse(data.validTo), now);
  let announced = memory.announced;
  const threshold = thresholdToAnnounce(announced, data.fingerprintSha256, SSL_THRESHOLDS, (t) => days <= t);
  if (threshold !== undefined) {
    announced = remember(announced, data.fingerprintSha256, threshold);
    events.push({
      type: 'ssl.expiring',
      data: { threshold, days_remaining: days, valid_to: data.validTo, fingerprint_sha256: data.fingerprintSha256 },
    });
  }
  if (previous !== null && previous.fingerprint_sha256 !== current.fingerprint_sha256) {
    const picture = ({ fingerprint_sha256, valid_to, issuer }: SslSnapshot) => ({ fingerprint_sha256, valid_to, issuer });
    events.push({ type: 'ssl.changed', data: { previous: picture(previous), current: picture(current) } });
  }
  if (!data.isValid && (previous === null || previous.is_valid)) {
    events.push({
      type: 'ssl.invalid',
      data: { authorization_error: data.authorizationError, hostname_matches: data.hostnameMatches, valid_to: data.validTo },
    });
  }
  return { events, snapshot: { ...current }, announced };
}
