import { DossierValidationError } from '../errors.js';
import type { ApiKey, KeyMark, KeyPage, KeyPageQuery, KeyStatus, KeyStore, Scope } from '../ports/key-store.js';
import type { Page } from '../ports/page.js';
import { keyStatusAt } from '../records/stored-key.js';
import { hasNul } from '../schemas/text.js';
import { SCOPES } from './key-rules.js';

/** What a page of the key list is asked for (docs/contract.md §5), as the wire sends it. */
export interface KeyListQuery {
  /** 1 to 500. @default 100 */
  limit?: string;
  /** The previous page's `nextCursor`: the page after it. */
  cursor?: string;
  /** A page's `previousCursor`: the page before it (the panel's **Previous**). */
  before?: string;
  /** A case-insensitive substring of the name, the owner or the id. */
  search?: string;
  status?: string;
  scope?: string;
  owner?: string;
}

const STATUSES: readonly KeyStatus[] = ['active', 'revoked', 'expired'];

/**
 * A page of the keys, newest first (the newest created, then by id), filtered as `query` asks, with the
 * exact count of the filtered keys, read by the store ({@link KeyStore.page}). The cursor names the last
 * key of the page (its creation and id), so a key created or revoked meanwhile moves no other from one page
 * to the next.
 * @throws DossierValidationError `ERR_KEY_INVALID` naming each bad parameter; DossierError `ERR_STORE_UNAVAILABLE`
 */
export async function listKeys(keys: KeyStore, query: KeyListQuery, now: number): Promise<KeyListPage> {
  const page = await keys.page({ ...checkQuery(query), now });
  return {
    items: page.items,
    total: page.total,
    nextCursor: page.next === null ? null : cursorOf(page.next),
    previousCursor: page.previous === null ? null : cursorOf(page.previous),
  };
}

/** A page of keys, with the cursor of the page before it (`null` on the first). */
export interface KeyListPage extends Page<ApiKey> {
  previousCursor: string | null;
}

/**
 * {@link KeyStore.page} over every key, filtered and sorted here: for a store whose keys are all in this
 * process anyway (memory://).
 */
export function pageOf(keys: readonly ApiKey[], query: KeyPageQuery): KeyPage {
  const { limit, after, before, search, status, scope, owner, now } = query;
  const matching = keys
    .filter(
      (key) =>
        (status === undefined || keyStatusAt(key, now) === status) &&
        (scope === undefined || key.scopes.includes(scope)) &&
        (owner === undefined || key.owner === owner) &&
        (search === undefined || [key.name, key.owner, key.id].some((text) => text.toLowerCase().includes(search))),
    )
    .sort((a, b) => compareNewestFirst(a, b));
  const following = (mark: KeyMark): number => {
    const index = matching.findIndex((key) => compareNewestFirst(key, mark) > 0);
    return index < 0 ? matching.length : index;
  };
  let start = after === undefined ? 0 : following(after);
  if (before !== undefined) {
    const end = matching.findIndex((key) => compareNewestFirst(key, before) >= 0);
    start = Math.max(0, (end < 0 ? matching.length : end) - limit);
  }
  const items = matching.slice(start, start + limit);
  const [first, last] = [items[0], items.at(-1)];
  return {
    items,
    total: matching.length,
    next: start + limit < matching.length && last !== undefined ? markOf(last) : null,
    previous: start > 0 && first !== undefined ? markOf(first) : null,
  };
}

/** Newest first: the later creation first, then the greater id. */
function compareNewestFirst(a: KeyMark, b: KeyMark): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

function markOf(key: ApiKey): KeyMark {
  return { createdAt: key.createdAt, id: key.id };
}

function cursorOf(mark: KeyMark): string {
  return Buffer.from(JSON.stringify([mark.createdAt, mark.id])).toString('base64url');
}

/** The query checked, every bad parameter named. */
function checkQuery(query: KeyListQuery): Omit<KeyPageQuery, 'now'> {
  const errors: Record<string, string[]> = {};
  const limitText = query.limit ?? '100';
  const limit = /^[1-9]\d{0,2}$/.test(limitText) && Number(limitText) <= 500 ? Number(limitText) : 0;
  if (limit === 0) errors.limit = ['Must be an integer from 1 to 500.'];
  const [after, before] = (['cursor', 'before'] as const).map((field) => {
    const given = query[field];
    const key = given === undefined ? undefined : cursorKey(given);
    if (given !== undefined && key === undefined) errors[field] = ['Must be a cursor a page gave.'];
    return key;
  });
  if (query.status !== undefined && !STATUSES.includes(query.status as KeyStatus)) {
    errors.status = [`Must be one of ${STATUSES.join(', ')}.`];
  }
  if (query.scope !== undefined && !SCOPES.includes(query.scope as Scope))
    errors.scope = [`Must be one of ${SCOPES.join(', ')}.`];
  for (const field of ['search', 'owner'] as const) {
    const value = query[field];
    if (value !== undefined && (value.length === 0 || value.length > 200)) errors[field] = ['Must be 1 to 200 characters.'];
    else if (value !== undefined && hasNul(value)) errors[field] = ['Must not contain the NUL character (U+0000).'];
  }
  if (Object.keys(errors).length > 0) throw new DossierValidationError('ERR_KEY_INVALID', errors);
  return {
    limit,
    ...(after && { after }),
    ...(before && { before }),
    ...(query.search !== undefined && { search: query.search.toLowerCase() }),
    ...(query.status !== undefined && { status: query.status as KeyStatus }),
    ...(query.scope !== undefined && { scope: query.scope as Scope }),
    ...(query.owner !== undefined && { owner: query.owner }),
  };
}

/** The key a cursor names, or `undefined` for a cursor no page gave. */
function cursorKey(cursor: string): KeyMark | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')) {
      return { createdAt: value[0] as string, id: value[1] as string };
    }
  } catch {
    // Not JSON: no page gave it.
  }
  return undefined;
}
