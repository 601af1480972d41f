import { DossierError } from '../errors.js';
import type { LookupKind } from '../ports/lookup-service.js';
import type { BatchItemRequest } from '../ports/metering.js';
import { compiledSchema, fieldProblems, plainSchema, type FieldProblem } from '../schemas/ajv.js';
import { BATCH_QUERY_FIELDS, BatchRequest } from '../schemas/batch.js';

// The rules live in the schema (lib/schemas/batch.ts), which the OpenAPI document shows too.
export { BATCH_MAX_ITEMS } from '../schemas/batch.js';

/** A schema as plain JSON. */
type Json = Record<string, any>;

const LOOKUPS = (plainSchema(BatchRequest).properties as Json).lookups as Json;
/** The alternatives of an item, one per kind, as the schema declares them. */
const ITEMS = LOOKUPS.items.anyOf as Json[];
const KINDS = ITEMS.map((branch) => String(branch.properties.type.const));
const ITEM_EXAMPLE = '{"type":"dns","domain":"example.com"}';

/**
 * Reads a batch request, `{"lookups":[{"type":"dns"|"whois"|"ssl","domain":"…"} | {"type":"ip","ip":"…"}, …]}`
 * with an optional `"fresh": true` on each item, from its JSON text or from the parsed value, and checks
 * it against {@link BatchRequest}. Only the shape is checked here: a domain or address that is a string
 * but not a valid one is that item's own error later, as a single lookup would answer it.
 * @throws DossierError `ERR_BATCH_INVALID`, whose message names the first thing at fault (the body,
 *   then `lookups`, then the first item at fault): a body that is not JSON, no `lookups` array, none or
 *   more than {@link BATCH_MAX_ITEMS} items, an item that is not an object, an unknown `type`, a missing or
 *   non-string query, a non-boolean `fresh`. Other fields are ignored.
 */
export function parseBatchRequest(input: unknown): BatchItemRequest[] {
  const body = typeof input === 'string' ? parseJson(input) : input;
  const validate = compiledSchema(BatchRequest);
  if (!validate(body)) throw invalid(firstProblem(body as Json, fieldProblems(validate.errors ?? [])));
  return (body as BatchRequest).lookups.map((item) => {
    const kind = item.type as LookupKind;
    return { kind, query: item[BATCH_QUERY_FIELDS[kind]] as string, fresh: (item.fresh as boolean | undefined) ?? false };
  });
}

/**
 * The sentence for what ajv found, the first problem in reading order: the body, then `lookups` and
 * its bounds (read from the schema), then the first item at fault, judged against its own kind's
 * alternative (the one its `type` names, as a discriminator would).
 */
function firstProblem(body: Json, problems: FieldProblem[]): string {
  const range = `${LOOKUPS.minItems} to ${LOOKUPS.maxItems}`;
  const at = (field: string, keyword: string) =>
    problems.some((problem) => problem.field.join('.') === field && problem.error.keyword === keyword);
  if (at('', 'type')) return 'The body must be a JSON object: {"lookups":[…]}.';
  if (at('lookups', 'required') || at('lookups', 'type')) return `The body must hold "lookups", an array of ${range} items.`;
  if (at('lookups', 'minItems')) return `"lookups" is empty; send ${range} items.`;
  const lookups = body.lookups as unknown[];
  if (at('lookups', 'maxItems')) {
    const max = String(LOOKUPS.maxItems);
    return `"lookups" has ${lookups.length} items: lookups[${max}] and after are past the limit of ${max}.`;
  }
  const index = Math.min(...problems.filter(({ field }) => field.length > 1).map(({ field }) => Number(field[1])));
  return itemProblem(lookups[index], `lookups[${index}]`);
}

/** What is wrong with one item, against the alternative of its kind. */
function itemProblem(item: unknown, name: string): string {
  const kinds = KINDS.join(', ');
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return `${name} must be an object such as ${ITEM_EXAMPLE}.`;
  }
  const { type } = item as Json;
  if (type === undefined) return `${name} has no "type"; use one of ${kinds}.`;
  const at = ITEMS.findIndex((candidate) => candidate.properties.type.const === type);
  if (at === -1) return `${name}.type ${JSON.stringify(type)} is not one of ${kinds}.`;
  const validate = compiledSchema(BatchRequest.properties.lookups.items.anyOf[at]!);
  validate(item);
  const problems = fieldProblems(validate.errors ?? []);
  const missing = problems.find((problem) => problem.error.keyword === 'required');
  if (missing !== undefined) return `${name} (type ${String(type)}) has no "${missing.field.join('.')}".`;
  for (const field of Object.keys(ITEMS[at]!.properties as Json)) {
    const wrong = problems.find((problem) => problem.field.join('.') === field && problem.error.keyword === 'type');
    if (wrong !== undefined) return `${name}.${field} ${wrong.phrase}.`;
  }
  return `${name} is invalid.`;
}

function parseJson(text: string): unknown {
  try {
    // A byte order mark is not JSON, but some clients send one.
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    throw invalid('The body is not valid JSON; send {"lookups":[…]}.');
  }
}

function invalid(message: string): DossierError {
  return new DossierError('ERR_BATCH_INVALID', message);
}
