import { DossierError } from '../../errors.js';
import type { StoredDelivery, WatchRecord } from '../../ports/watch-store.js';
import { deserialize } from './serialize.js';

// What the watch stores of SQL and Redis (lib/stores/sql/watches.ts, lib/stores/redis/watches.ts) read
// alike: the cursors of their pages, and the key-value records older releases kept, which both move into
// their own records when they open a store.

/** The lists older releases kept beside the records by hand (and the counters of their slots), deleted once moved. */
export const OLD_WATCH_LISTS = ['watch-list:', 'delivery-list:', 'watches:', 'deliveries:'] as const;

/** A record of an older release found under `name`, ready to move. */
export interface OldWatchRecord<R> {
  name: string;
  record: R;
}

/**
 * The watch (`kind` 'watch') or delivery found in a value as Keyv wrote it (`{"value":…,"expires":…}`),
 * or `undefined` when the value is no record this store can hold (unreadable, or missing a field the
 * move needs: its id, its creation, its owner and key or its watch and status). A delivery loses the slot
 * an append-only list gave it, which is no part of it.
 */
export function oldRecord(text: string, kind: 'watch' | 'delivery'): WatchRecord | StoredDelivery | undefined {
  let value: unknown;
  try {
    value = deserialize<{ value?: unknown }>(text).value;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || typeof record.createdAt !== 'string') return undefined;
  if (kind === 'watch') {
    return typeof record.owner === 'string' && typeof record.keyId === 'string' ? (record as unknown as WatchRecord) : undefined;
  }
  if (typeof record.watchId !== 'string' || typeof record.status !== 'string') return undefined;
  const { slot: _slot, ...delivery } = record;
  return delivery as unknown as StoredDelivery;
}

/** Records of older releases in their order of creation: the order the new lists keep (`seq`). */
export function byCreation<R extends { createdAt: string }>(found: OldWatchRecord<R>[]): OldWatchRecord<R>[] {
  return found.sort((a, b) => (a.record.createdAt < b.record.createdAt ? -1 : a.record.createdAt > b.record.createdAt ? 1 : 0));
}

/** The cursor of the page after the one that ended at `seq` (the order of creation), opaque to the client. */
export function cursorOfSeq(seq: number): string {
  return Buffer.from(`w${seq}`).toString('base64url');
}

/**
 * The `seq` a page's cursor ends at.
 * @throws DossierError `ERR_WATCH_INVALID` for a cursor no page gave.
 */
export function seqOfCursor(cursor: string): number {
  const seq = /^w(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString())?.[1];
  if (seq === undefined) throw new DossierError('ERR_WATCH_INVALID', 'This cursor is not one a page of this list gave.');
  return Number(seq);
}
