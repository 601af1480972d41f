import type { WatchEventType } from '../../ports/watches.js';

/** One event a check found, before it is addressed and timed. */
export interface FoundEvent {
  type: WatchEventType;
  data: Record<string, unknown>;
}

/**
 * What a watch remembers between checks: the last successful check's picture of what it watches, and
 * what it already announced, so that each rule of docs/contract.md §11 fires once.
 */
export interface WatchMemory {
  /** The picture of the last successful check; `null` before the first (the baseline). */
  snapshot: Record<string, unknown> | null;
  /** By certificate fingerprint or expiry date: the lowest expiry threshold already announced. */
  announced: Record<string, number>;
  /** Upstream failures in a row since the last success. */
  failures: number;
  /** True once `check.failed` was announced, until a check succeeds. */
  failureAnnounced: boolean;
}

/** The memory of a watch that has not been checked yet. */
export const FRESH_MEMORY: WatchMemory = { snapshot: null, announced: {}, failures: 0, failureAnnounced: false };

/** What one successful check concluded: its events and what to remember. */
export interface Detection {
  events: FoundEvent[];
  snapshot: Record<string, unknown>;
  announced: Record<string, number>;
}

/** Expiry announcements kept at the most, the newest (a certificate or date seen again keeps its own). */
const ANNOUNCED_KEPT = 8;

/**
 * The expiry threshold to announce now, if any: the lowest of `thresholds` that `reached` says holds,
 * when it is lower than the one already announced for `subject` (each threshold once per subject, and
 * never a higher one after a lower one).
 */
export function thresholdToAnnounce(
  announced: Record<string, number>,
  subject: string,
  thresholds: readonly number[],
  reached: (threshold: number) => boolean,
): number | undefined {
  const lowest = thresholds.filter(reached).sort((a, b) => a - b)[0];
  if (lowest === undefined) return undefined;
  const before = announced[subject];
  return before === undefined || lowest < before ? lowest : undefined;
}

/** `announced` with `subject` set to `threshold`, keeping only the newest few subjects. */
export function remember(announced: Record<string, number>, subject: string, threshold: number): Record<string, number> {
  const entries = Object.entries(announced).filter(([key]) => key !== subject);
  entries.push([subject, threshold]);
  return Object.fromEntries(entries.slice(-ANNOUNCED_KEPT));
}

/** The members of `after` not in `before`, and those of `before` not in `after`, compared as JSON. */
export function setDifference<T>(before: readonly T[], after: readonly T[]): { added: T[]; removed: T[] } {
  const key = (value: T): string => JSON.stringify(value);
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  return { added: after.filter((value) => !had.has(key(value))), removed: before.filter((value) => !has.has(key(value))) };
}

/** The values of `values`, without duplicates, in one order (by their JSON), so that two sets compare equal. */
export function canonicalSet<T>(values: readonly T[]): T[] {
  const byKey = new Map(values.map((value) => [JSON.stringify(value), value]));
  return [...byKey.keys()].sort().map((key) => byKey.get(key)!);
}
