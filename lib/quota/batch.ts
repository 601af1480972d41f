import { DossierError, isDossierError } from '../errors.js';
import type { ApiKey } from '../ports/key-store.js';
import type { LookupResult } from '../ports/lookup-service.js';
import type { QuotaState } from '../ports/quota-store.js';
import type { BatchItemOutcome, BatchItemRequest, BatchOptions, BatchRules, BatchRun, Metered } from '../ports/metering.js';

/**
 * How many distinct upstream queries one batch runs at once. A batch of 100 slow whois servers opens at
 * most this many connections at a time; the others wait for a free place, in the order given.
 */
export const BATCH_CONCURRENCY = 8;

/**
 * Runs the items of a batch for an authenticated key with the `lookup` scope, each under the rules of a
 * single lookup (docs/contract.md §2, §8):
 *
 * - an item whose query is invalid is answered with its 400 error and not counted;
 * - the quota is taken one unit per countable item, in the items' order, each taken before the next is
 *   asked for, so that when n remain, the first n countable items are served; the store's atomic
 *   counter makes that exact against concurrent requests and other processes. When a unit is refused
 *   while earlier items are still running, their outcome is awaited first, since an item refused after
 *   resolution (`target_not_allowed`) gives its unit back, which then goes to the next item;
 * - the items after the first refused one are refused too (`quota_exceeded`), without asking the store;
 *   when nothing remained for the first countable item, the whole batch is refused (429);
 * - a store that fails on the first unit refuses the whole batch; later, it fails the remaining items;
 * - identical items (same kind, same normalized target, same `fresh`) share one upstream query, and each
 *   still counts; at most {@link BATCH_CONCURRENCY} queries run at once.
 *
 * Resolves once every unit has been taken, with the key's quota at that moment; the items may still be
 * running (see {@link BatchRun.done} and {@link BatchOptions.onItem}).
 */
export async function runBatch(
  rules: BatchRules,
  key: ApiKey,
  limit: number,
  items: BatchItemRequest[],
  options: BatchOptions = {},
): Promise<Metered<BatchRun>> {
  const outcomes: BatchItemOutcome[] = new Array<BatchItemOutcome>(items.length);
  const settledItems: Promise<void>[] = [];
  // Outcomes held back until the batch is let through, so that a batch refused whole reports no item.
  let letThrough = false;
  const held: number[] = [];
  const settle = (index: number, outcome: BatchItemOutcome): void => {
    outcomes[index] = outcome;
    if (letThrough) options.onItem?.(index, outcome);
    else held.push(index);
  };
  const release = (): void => {
    letThrough = true;
    for (const index of held.splice(0)) options.onItem?.(index, outcomes[index]!);
  };

  const limited = limiter(BATCH_CONCURRENCY);
  const shared = new Map<string, Promise<LookupResult>>();
  /** Counted items still running. */
  const running = new Set<Promise<void>>();
  let lastTaken: QuotaState | null = null;
  /** What every remaining countable item gets, once the quota is spent or the store failed. */
  let refusal: DossierError | null = null;

  for (const [index, item] of items.entries()) {
    const { kind, query, fresh } = item;
    let target: string;
    try {
      target = rules.lookups.parse(kind, query);
    } catch (error) {
      settle(index, failed(item, error));
      continue;
    }
    if (refusal !== null) {
      settle(index, failed(item, refusal));
      continue;
    }
    let quota: QuotaState;
    try {
      quota = await rules.quotas.consume(key.id, limit, kind);
      if (!quota.allowed && running.size > 0) {
        await Promise.allSettled(running);
        quota = await rules.quotas.consume(key.id, limit, kind);
      }
    } catch (error) {
      if (!letThrough) return failure(error, key, null);
      refusal = asDossierError(error);
      settle(index, failed(item, refusal));
      continue;
    }
    if (!quota.allowed) {
      refusal = rules.quotaExceeded(quota);
      if (!letThrough) return failure(refusal, key, quota);
      settle(index, failed(item, refusal));
      continue;
    }
    lastTaken = quota;
    if (!letThrough) release();

    const sharing = `${kind} ${fresh ? 'fresh' : 'any'} ${target}`;
    let answer = shared.get(sharing);
    if (answer === undefined) {
      const { logger } = options;
      answer = limited(() => rules.lookups.lookup(kind, target, logger === undefined ? { fresh } : { fresh, logger }));
      shared.set(sharing, answer);
    }
    const itemDone = answer.then(
      (value) => settle(index, { kind, query, ok: true, value }),
      async (error: unknown) => {
        if (isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED')) await rules.refund(key, quota, kind);
        settle(index, failed(item, error));
      },
    );
    running.add(itemDone);
    const forget = (): boolean => running.delete(itemDone);
    itemDone.then(forget, forget);
    settledItems.push(itemDone);
  }
  let taken = lastTaken;
  if (taken === null) {
    // No item was countable: nothing was taken, and the quota is read as it stands.
    taken = await rules.peek(key);
    if (taken === null) return failure(new DossierError('ERR_STORE_UNAVAILABLE', 'The quota store did not answer.'), key, null);
    release();
  }
  const done = Promise.all(settledItems).then(async () => ({ items: outcomes, quota: (await rules.peek(key)) ?? taken }));
  // A bug in an item surfaces through `done`; this only keeps it from being reported as unhandled meanwhile.
  done.catch(() => {});
  return { ok: true, value: { done }, key, quota: taken };
}

function failed(item: BatchItemRequest, error: unknown): BatchItemOutcome {
  return { kind: item.kind, query: item.query, ok: false, error: asDossierError(error) };
}

function asDossierError(error: unknown): DossierError {
  if (error instanceof DossierError) return error;
  throw error;
}

/** A metered call refused with `error`, which must be a {@link DossierError}: anything else (a bug) is thrown. */
export function failure(error: unknown, key: ApiKey | null, quota: QuotaState | null): Extract<Metered<never>, { ok: false }> {
  return { ok: false, error: asDossierError(error), key, quota };
}

/** Runs at most `max` tasks at once; the others start in the order they were given, as places free up. */
function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active < max) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The place goes straight to the next task waiting, if any.
      const next = waiting.shift();
      if (next !== undefined) next();
      else active -= 1;
    }
  };
}
