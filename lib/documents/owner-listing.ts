import type { DocumentQuery, StoredDocument } from '../ports/document-store.js';
import { compareCodePoints, nameSortKey, searchText } from '../records/stored-document.js';

/** Filtered lists remembered per listing. */
const MEMO_SIZE = 8;

interface Entry {
  doc: StoredDocument;
  /** The name as searched (`searchText`). */
  lowerName: string;
  /** What `sort_by=name` orders by. */
  nameKey: string;
  /** The result as searched, computed on the first search in results. */
  lowerResult?: string;
}

/** One page of matches, and how many matched in all. */
export interface ListingPage {
  docs: StoredDocument[];
  total: number;
}

/** Entries kept sorted, and which entries it keeps. */
interface SortedList {
  entries: Entry[];
  compare(a: Entry, b: Entry): number;
  /** True for the entries this list holds (every one for the lists of all documents). */
  holds(entry: Entry): boolean;
}

/**
 * The parsed documents of one owner, kept in id order (and in name order once a listing asks for it),
 * with the matches of the last filters asked for, so that filtering, sorting and paging need no store
 * reads. A change is applied to each list where it belongs (found by binary search), so that a listing
 * after a change costs what it did before: filtering all the documents again happens only for a filter
 * not asked for lately.
 */
export class OwnerListing {
  private readonly byId: SortedList;
  private byName: SortedList | undefined;
  /** The matches of recent filters (not pages), least recently used first. */
  private readonly memo = new Map<string, SortedList>();
  /** Approximate size in characters, for the cache budget. */
  weight: number;

  constructor(docs: StoredDocument[]) {
    this.byId = { entries: docs.map(entryOf).sort(compareById), compare: compareById, holds: () => true };
    this.weight = this.byId.entries.reduce((sum, entry) => sum + weightOf(entry.doc), 0);
  }

  /** Number of documents held. */
  get size(): number {
    return this.byId.entries.length;
  }

  /** Adds or replaces a document. */
  put(doc: StoredDocument): void {
    this.remove(doc.id);
    const entry = entryOf(doc);
    for (const list of this.lists()) {
      if (list.holds(entry)) list.entries.splice(upperBound(list.entries, entry, list.compare), 0, entry);
    }
    this.weight += weightOf(doc);
  }

  /** Removes a document if held. */
  remove(id: number): void {
    const entry = this.byId.entries[firstIdAtLeast(this.byId.entries, id)];
    if (entry?.doc.id !== id) return;
    for (const list of this.lists()) {
      if (!list.holds(entry)) continue;
      const index: number = upperBound(list.entries, entry, list.compare) - 1;
      if (list.entries[index] === entry) list.entries.splice(index, 1);
    }
    this.weight -= weightOf(entry.doc);
  }

  /** The page `query` asks for, and the number of matches in all. */
  page(query: DocumentQuery): ListingPage {
    const matched = this.matching(query);
    const total = matched.length;
    const start = Math.min((query.page - 1) * query.perPage, total);
    const end = Math.min(start + query.perPage, total);
    const docs: StoredDocument[] = [];
    for (let rank = start; rank < end; rank += 1) {
      const entry = matched[query.sort === 'desc' ? total - 1 - rank : rank] as Entry;
      docs.push(entry.doc);
    }
    return { docs, total };
  }

  private lists(): SortedList[] {
    return [this.byId, ...(this.byName ? [this.byName] : []), ...this.memo.values()];
  }

  /** The entries that pass the filters of `query`, in ascending order. */
  private matching(query: DocumentQuery): Entry[] {
    const key = `${query.sortBy}|${query.templateId}|${String(query.favorite)}|${query.searchBy}|${query.search ?? ''}`;
    const remembered = this.memo.get(key);
    if (remembered) {
      // Refresh its place in the least-recently-used order.
      this.memo.delete(key);
      this.memo.set(key, remembered);
      return remembered.entries;
    }
    const order =
      query.sortBy === 'name'
        ? (this.byName ??= { entries: [...this.byId.entries].sort(compareByName), compare: compareByName, holds: () => true })
        : this.byId;
    const holds = (entry: Entry): boolean => matches(entry, query);
    const matched: SortedList = { entries: order.entries.filter(holds), compare: order.compare, holds };
    this.memo.set(key, matched);
    if (this.memo.size > MEMO_SIZE) this.memo.delete(this.memo.keys().next().value as string);
    return matched.entries;
  }
}

function matches(entry: Entry, query: DocumentQuery): boolean {
  const doc = entry.doc;
  if (doc.template_id !== query.templateId) return false;
  if (query.favorite !== undefined && doc.favorite !== query.favorite) return false;
  if (query.search === undefined) return true;
  const haystack = query.searchBy === 'name' ? entry.lowerName : (entry.lowerResult ??= searchText(doc.result));
  return haystack.includes(query.search);
}

function entryOf(doc: StoredDocument): Entry {
  return { doc, lowerName: searchText(doc.name), nameKey: nameSortKey(doc.name) };
}

function weightOf(doc: StoredDocument): number {
  // The name is held three times (as is, lower-cased, as a key), the result twice (once lower-cased for searches).
  return 200 + doc.name.length * 3 + doc.prompt.length + doc.result.length * 2;
}

function compareById(a: Entry, b: Entry): number {
  return a.doc.id - b.doc.id;
}

function compareByName(a: Entry, b: Entry): number {
  return compareCodePoints(a.nameKey, b.nameKey) || a.doc.id - b.doc.id;
}

/** The index of the first entry (in id order) whose id is `id` or more. */
function firstIdAtLeast(entries: Entry[], id: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((entries[middle] as Entry).doc.id < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose entry sorts after `entry` (after it, when the list holds it). */
function upperBound(entries: Entry[], entry: Entry, compare: (a: Entry, b: Entry) => number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(entries[middle] as Entry, entry) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
