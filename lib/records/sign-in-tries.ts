import type { SignInVerdict } from '../ports/session-store.js';

// The wrong tries of an address, as every session store counts them (lib/ports/session-store.ts).

/** Wrong tries from one address, within {@link SIGN_IN_WINDOW_MS}, that lock that address. */
export const SIGN_IN_FAILURES = 5;

/** The window of {@link SIGN_IN_FAILURES}, and how long the lock lasts: one minute. */
export const SIGN_IN_WINDOW_MS = 60_000;

/** An address's wrong tries of the last minute, and until when it is locked (ms since the epoch). */
export interface TriesRecord {
  times: number[];
  lockedUntil: number;
}

/**
 * What a try at `now` does to an address's record: `locked` (nothing written) while it is locked; else
 * the record with the try counted as a wrong one (kept a window after it), and whether that locked it.
 */
export function countTry(
  record: TriesRecord | undefined,
  now: number,
): { locked: SignInVerdict & { outcome: 'locked' } } | { counted: TriesRecord; nowLocked: boolean; expiresAt: number } {
  if (record !== undefined && record.lockedUntil > now) return { locked: { outcome: 'locked', lockedUntil: record.lockedUntil } };
  const times = [...(record?.times ?? []).filter((time) => time > now - SIGN_IN_WINDOW_MS), now];
  const nowLocked = times.length >= SIGN_IN_FAILURES;
  const counted: TriesRecord = nowLocked ? { times: [], lockedUntil: now + SIGN_IN_WINDOW_MS } : { times, lockedUntil: 0 };
  return { counted, nowLocked, expiresAt: now + SIGN_IN_WINDOW_MS };
}

/** Until when a record locks its address at `now`, or `null`. */
export function lockedAt(record: TriesRecord | undefined, now: number): number | null {
  return record !== undefined && record.lockedUntil > now ? record.lockedUntil : null;
}
