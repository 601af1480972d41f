import type { StoredDocument } from '../ports/document-store.js';

// How documents are kept at rest, read by lib/documents (the key-value store of memory://) and lib/stores
// (the records and indexes of Redis, the SQL tables, and the upgrade of what older releases wrote there):
// the record names, and the two rules of a listing that every store must apply alike.

/** What the key of a document's record in a key-value store starts with, before its id. */
export const DOCUMENT_KEY_PREFIX = 'doc:';

/** The key of a document's record in a key-value store. */
export function documentKey(id: number): string {
  return `${DOCUMENT_KEY_PREFIX}${id}`;
}

/** The counter that hands out document ids in a key-value store (and in SQL stores that older releases wrote). */
export const DOCUMENT_ID_COUNTER = 'documents:id';

/**
 * The name of an owner's append-only index of changed documents in a key-value store (memory://, and
 * Redis before its indexes): its slots are the values `documents:<owner>:<n>`, its length the counter
 * `documents:<owner>:length`.
 */
export function documentIndexName(owner: string): string {
  return `documents:${owner}`;
}

/** True when `value` read from a key-value store is a document (of `owner`, when given). */
export function isStoredDocument(value: unknown, owner?: string): value is StoredDocument {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<StoredDocument>;
  return (
    typeof record.owner === 'string' &&
    (owner === undefined || record.owner === owner) &&
    typeof record.id === 'number' &&
    typeof record.name === 'string'
  );
}

/**
 * The form in which a search looks for text, applied alike to what is looked for and to the names and
 * results looked in: `search` matches when `searchText(search)` is a substring of `searchText(field)`.
 * Case-insensitive as JavaScript's full lower-casing is; accents, marks and every other character count.
 */
export function searchText(text: string): string {
  return text.toLowerCase();
}

/** A word of a searched form: a maximal run of letters, marks and digits. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const ONE_WORD = /^[\p{L}\p{M}\p{N}]+$/u;

/**
 * The distinct words of a searched form (a `searchText`). A needle made of letters, marks and digits only
 * (see {@link isWordNeedle}) is in a text if and only if it is a part of one of the text's words, as each of
 * its occurrences lies inside a maximal run of such characters: the stores that keep the words of the names
 * and results find such a needle's documents from the words that hold it, reading no text.
 */
export function searchedWords(searched: string): string[] {
  return [...new Set(Array.from(searched.matchAll(WORD), ([word]) => word))];
}

/** Whether a needle (a `searchText`) is made of letters, marks and digits only, so that the words of the texts find it. */
export function isWordNeedle(needle: string): boolean {
  return ONE_WORD.test(needle);
}

/** Code points a name key keeps at the most, so that it fits the index of every SQL store. */
const NAME_KEY_MAX = 300;
const MARK = /\p{M}/u;
const IGNORED = /[\p{Cc}\p{Cf}]/u;
/** Ends the marks of one letter in a key's second part; lower than any character kept. */
const MARK_END = '\u0001';
/** Separates a key's two parts. */
const PARTS = '\u0002';

/**
 * The key that `sort_by=name` orders by, compared code point by code point (byte by byte in UTF-8:
 * a binary collation in SQL), ties broken by id. Case-insensitive and accent-aware, as a database's
 * case-insensitive collation is: first the letters, case folded, compatibility forms unfolded (ﬁ, Ａ,
 * ß as ss) and accents set aside, so that Éclair sorts among the E's; then, between names whose letters
 * are the same, the accents (none before any). Control and format characters are ignored.
 */
export function nameSortKey(name: string): string {
  let letters = '';
  let marks = '';
  for (const char of name.normalize('NFKD')) {
    if (MARK.test(char)) {
      marks += char;
    } else if (!IGNORED.test(char)) {
      if (letters !== '') marks += MARK_END;
      letters += char.toUpperCase().toLowerCase();
    }
  }
  return Array.from(`${letters}${PARTS}${marks}`).slice(0, NAME_KEY_MAX).join('');
}

/** Orders two strings by code point (JavaScript's `<` orders UTF-16 code units, which differs past U+D7FF). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 code unit moved so that surrogates (astral code points) sort after U+E000–U+FFFF. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}
