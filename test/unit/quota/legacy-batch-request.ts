/**
 * The hand-written batch reader as it was before its rules moved into lib/schemas/batch.ts, kept
 * only as the oracle of batch-request-equivalence.test.ts: the schema-driven reader must answer every
 * input exactly as this did.
 */
import { DossierError } from '../../../lib/errors.js';
import { LOOKUP_KINDS, type LookupKind } from '../../../lib/ports/lookup-service.js';

/** The most items one batch may hold (CONTRACT.md §8). */
export const BATCH_MAX_ITEMS = 100;

/** The field that carries each kind's query in a batch item, as the single lookups name their parameter. */
export const BATCH_QUERY_FIELDS: Record<LookupKind, 'domain' | 'ip'> = {
  dns: 'domain',
  whois: 'domain',
  ip: 'ip',
  ssl: 'domain',
};

/** One item of a batch, its shape checked (its query is checked when it is looked up). */
export interface BatchItemRequest {
  kind: LookupKind;
  /** The domain or address as the client wrote it. */
  query: string;
  /** Skip the cache for this item (`"fresh": true`). */
  fresh: boolean;
}

/**
 * Reads a batch request, `{"lookups":[{"type":"dns"|"whois"|"ssl","domain":"…"} | {"type":"ip","ip":"…"}, …]}`
 * with an optional `"fresh": true` on each item, from its JSON text or from the parsed value. Only the
 * shape is checked here: a domain or address that is a string but not a valid one is that item's own
 * error later, as a single lookup would answer it.
 * @throws DossierError `ERR_BATCH_INVALID`, whose message names the item at fault: a body that is not
 *   JSON, no `lookups` array, none or more than {@link BATCH_MAX_ITEMS} items, an item that is not an
 *   object, an unknown `type`, a missing or non-string query, a non-boolean `fresh`. Other fields are ignored.
 */
export function parseBatchRequest(input: unknown): BatchItemRequest[] {
  const body = typeof input === 'string' ? parseJson(input) : input;
  if (!isPlainObject(body)) throw invalid('The body must be a JSON object: {"lookups":[…]}.');
  const { lookups } = body;
  if (!Array.isArray(lookups)) throw invalid('The body must hold "lookups", an array of 1 to 100 items.');
  if (lookups.length === 0) throw invalid('"lookups" is empty; send 1 to 100 items.');
  if (lookups.length > BATCH_MAX_ITEMS) {
    throw invalid(
      `"lookups" has ${lookups.length} items: lookups[${BATCH_MAX_ITEMS}] and after are past the limit of ${BATCH_MAX_ITEMS}.`,
    );
  }
  return lookups.map((item: unknown, index) => parseItem(item, index));
}

function parseItem(item: unknown, index: number): BatchItemRequest {
  const name = `lookups[${index}]`;
  if (!isPlainObject(item)) throw invalid(`${name} must be an object such as {"type":"dns","domain":"example.com"}.`);
  const { type } = item;
  if (type === undefined) throw invalid(`${name} has no "type"; use one of ${LOOKUP_KINDS.join(', ')}.`);
  if (typeof type !== 'string' || !(LOOKUP_KINDS as readonly string[]).includes(type)) {
    throw invalid(`${name}.type ${JSON.stringify(type)} is not one of ${LOOKUP_KINDS.join(', ')}.`);
  }
  const kind = type as LookupKind;
  const field = BATCH_QUERY_FIELDS[kind];
  const query = item[field];
  if (query === undefined) throw invalid(`${name} (type ${kind}) has no "${field}".`);
  if (typeof query !== 'string') throw invalid(`${name}.${field} must be a string.`);
  const { fresh = false } = item;
  if (typeof fresh !== 'boolean') throw invalid(`${name}.fresh must be true or false.`);
  return { kind, query, fresh };
}

function parseJson(text: string): unknown {
  try {
    // A byte order mark is not JSON, but some clients send one.
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    throw invalid('The body is not valid JSON; send {"lookups":[…]}.');
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): DossierError {
  return new DossierError('ERR_BATCH_INVALID', message);
}
