import type { DossierError } from '../../errors.js';
import type { DnsData, SslData, WhoisData } from '../../ports/lookup-service.js';
import type { WatchType } from '../../ports/watches.js';
import type { FoundEvent, WatchMemory } from './detection.js';
import { detectDns } from './dns.js';
import { detectSsl } from './ssl.js';
import { detectWhois } from './whois.js';

/** Upstream failures in a row after which `check.failed` is announced. */
export const FAILURES_BEFORE_ANNOUNCING = 3;

/** The code a failed check names in `check.failed`: interface A's wire code of the lookup's error. */
const FAILURE_CODES: Partial<Record<DossierError['code'], string>> = {
  ERR_UPSTREAM_TIMEOUT: 'upstream_timeout',
  ERR_LOOKUP_TARGET_NOT_ALLOWED: 'target_not_allowed',
  ERR_LOOKUP_INVALID_DOMAIN: 'invalid_domain',
};

/** How one check ended: the lookup's answer, or its error. */
export type CheckResult = { ok: true; data: unknown } | { ok: false; error: DossierError };

/** What a check concluded: the events to announce and the memory to keep. */
export interface Verdict {
  events: FoundEvent[];
  memory: WatchMemory;
}

/**
 * Applies the rules of docs/contract.md §11 to one check: a success compares with the last success (the
 * first one sets the baseline) and clears the failures; a failure changes nothing it saw, counts, and
 * announces `check.failed` once, at the third in a row, until a check succeeds.
 * @param now ms since the epoch, from the Clock
 */
export function judgeCheck(type: WatchType, memory: WatchMemory, result: CheckResult, now: number): Verdict {
  if (!result.ok) {
    const failures = memory.failures + 1;
    const announce = failures >= FAILURES_BEFORE_ANNOUNCING && !memory.failureAnnounced;
    const events: FoundEvent[] = announce
      ? [
          {
            type: 'check.failed',
            data: { code: FAILURE_CODES[result.error.code] ?? 'upstream_error', message: result.error.message, failures },
          },
        ]
      : [];
    return { events, memory: { ...memory, failures, failureAnnounced: memory.failureAnnounced || announce } };
  }
  const detection =
    type === 'ssl'
      ? detectSsl(memory, result.data as SslData, now)
      : type === 'whois'
        ? detectWhois(memory, result.data as WhoisData, now)
        : detectDns(memory, result.data as DnsData);
  return {
    events: detection.events,
    memory: { snapshot: detection.snapshot, announced: detection.announced, failures: 0, failureAnnounced: false },
  };
}
