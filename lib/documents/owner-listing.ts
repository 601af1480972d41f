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

/**
 * The parsed documents of one owner, kept in id order (and in name order once a listing asks for it),
 * so that filtering, sorting and paging need no store reads.
 */
export class OwnerListing {
  private byId: Entry[];
  private byName: Entry[] | undefined;
  /** Filtered lists by filter (not page), so that paging through one search filters once. */
  private readonly memo = new Map<string, Entry[]>();
  /** Approximate size in characters, for the cache budget. */
  weight: number;

  constructor(docs: StoredDocument[]) {
    this.byId = docs.map(entryOf).sort((a, b) => a.doc.id - b.doc.id);
    this.weight = this.byId.reduce((sum, entry) => sum + weightOf(entry.doc), 0);
  }

  /** Number of documents held. */
  get size(): number {
    return this.byId.length;
  }

  /** Adds or replaces a document. */
  put(doc: StoredDocument): void {
    this.remove(doc.id);
    this.memo.clear();
    const entry = entryOf(doc);
    this.byId.splice(upperBound(this.byId, entry, compareById), 0, entry);
    if (this.byName) this.byName.splice(upperBound(this.byName, entry, compareByName), 0, entry);
    this.weight += weightOf(doc);
  }

  /** Removes a document if held. */
  remove(id: number): void {
    let low = 0;
    let high = this.byId.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.byId[middle] as Entry).doc.id < id) low = middle + 1;
      else high = middle;
    }
    const entry = this.byId[low];
    if (entry?.doc.id !== id) return;
    this.memo.clear();
    this.byId.splice(low, 1);
    this.weight -= weightOf(entry.doc);
    if (this.byName) {
      const nameIndex = this.byName.indexOf(entry);
      if (nameIndex !== -1) this.byName.splice(nameIndex, 1);
    }
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

  /** The entries that pass the filters of `query`, in ascending order; remembered until the next change. */
  private matching(query: DocumentQuery): Entry[] {
    const key = `${query.sortBy}|${query.templateId}|${String(query.favorite)}|${query.searchBy}|${query.search ?? ''}`;
    const remembered = this.memo.get(key);
    if (remembered) {
      // Refresh its place in the least-recently-used order.
      this.memo.delete(key);
      this.memo.set(key, remembered);
      return remembered;
    }
    const order = query.sortBy === 'name' ? (this.byName ??= [...this.byId].sort(compareByName)) : this.byId;
    const matched = order.filter((entry) => matches(entry, query));
    this.memo.set(key, matched);
    if (this.memo.size > MEMO_SIZE) this.memo.delete(this.memo.keys().next().value as string);
    return matched;
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

/** The first index whose entry sorts after `entry`. */
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
