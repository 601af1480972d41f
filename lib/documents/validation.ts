import { checkLaravel, defaultOf, type LaravelRules } from '../schemas/laravel.js';
import { DocumentCreate, DocumentListQuery, DocumentUpdate } from '../schemas/documents.js';
import type { DocumentQuery, StoredDocument } from '../ports/document-store.js';
import { searchText } from '../records/stored-document.js';

// The rules live in the schemas (lib/schemas/documents.ts), which the OpenAPI document shows too.

/** A listing request, validated and with defaults applied; `search` is absent when not given or empty. */
export interface ListQuery extends DocumentQuery {
  /** The filters that were given, normalized, in a fixed order (for links). `page` is not among them. */
  filters: Record<string, string>;
}

/** A create request, validated and with defaults applied. */
export interface CreateInput {
  name: string;
  prompt: string;
  creativity: number;
  templateId: number;
}

/** An update request: only the fields that were sent. */
export type UpdateInput = Partial<Pick<StoredDocument, 'name' | 'result' | 'favorite'>>;

/** Interface B's custom sentences (Laravel's `messages()`); `:values`, `:min` and `:max` come from the schema. */
const MESSAGES = {
  creativity: 'The selected :attribute is invalid. Use :values.',
  template_id: 'The :attribute field must be an integer between :min and :max.',
  favorite: 'The :attribute field must be :values.',
  page: 'The :attribute field must be a positive integer.',
} as const;

/** A listing's query: text as sent (no trimming), empty values not given, one value per parameter. */
const LIST_RULES: LaravelRules = { trim: [], emptyIsAbsent: true, singleValues: true, messages: MESSAGES };
/** A create: every string trimmed, `''` and `null` not given (so the defaults apply). */
const CREATE_RULES: LaravelRules = { trim: 'all', emptyIsAbsent: true, messages: MESSAGES };
/** An update: only `name` trimmed, and every field sent is checked as sent (`null` empties `result`). */
const UPDATE_RULES: LaravelRules = { trim: ['name'], emptyIsAbsent: false, messages: MESSAGES };

const LIST_FIELDS = DocumentListQuery.properties;
const CREATE_FIELDS = DocumentCreate.properties;

/**
 * Validates the query of a listing against {@link DocumentListQuery}. Empty values count as not
 * given (Laravel turns them into null); a repeated parameter, one in PHP's array notation
 * (`search[]=a`, `search[k]=a`, which Laravel reads as an array) or a value outside its allowed set
 * is a 422. The defaults are the schema's.
 * @throws DossierValidationError naming each bad parameter.
 */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const { values, written } = checkLaravel(DocumentListQuery, query, LIST_RULES);
  const filters: Record<string, string> = {};
  for (const field of Object.keys(LIST_FIELDS)) {
    if (field !== 'page' && typeof written[field] === 'string') filters[field] = written[field];
  }
  const pick = <K extends keyof typeof LIST_FIELDS>(field: K): unknown => values[field] ?? defaultOf(LIST_FIELDS[field]);
  const search = values.search as string | undefined;
  const favorite = values.favorite === undefined ? undefined : flag(values.favorite);
  return {
    ...(search !== undefined ? { search: searchText(search) } : {}),
    searchBy: pick('search_by') as ListQuery['searchBy'],
    templateId: pick('template_id') as number,
    ...(favorite !== undefined ? { favorite } : {}),
    sortBy: pick('sort_by') as ListQuery['sortBy'],
    sort: pick('sort') as ListQuery['sort'],
    perPage: pick('per_page') as number,
    page: pick('page') as number,
    filters,
  };
}

/**
 * Validates a create request against {@link DocumentCreate}. Strings are trimmed; unknown fields are
 * ignored; `creativity` and `template_id` default to the schema's defaults.
 * @throws DossierValidationError naming each bad field.
 */
export function parseCreateInput(input: Record<string, unknown>): CreateInput {
  const { values } = checkLaravel(DocumentCreate, input, CREATE_RULES);
  return {
    name: values.name as string,
    prompt: values.prompt as string,
    creativity: (values.creativity ?? defaultOf(CREATE_FIELDS.creativity)) as number,
    templateId: (values.template_id ?? defaultOf(CREATE_FIELDS.template_id)) as number,
  };
}

/**
 * Validates an update request against {@link DocumentUpdate}: every field is optional, and only those
 * sent are returned.
 * @throws DossierValidationError naming each bad field.
 */
export function parseUpdateInput(input: Record<string, unknown>): UpdateInput {
  const { values } = checkLaravel(DocumentUpdate, input, UPDATE_RULES);
  const update: UpdateInput = {};
  if (values.name !== undefined) update.name = values.name as string;
  if (values.result !== undefined) update.result = (values.result as string | null) ?? '';
  if (values.favorite !== undefined) update.favorite = flag(values.favorite);
  return update;
}

/** A document id from a path: a positive integer in canonical form, else `undefined`. */
export function parseDocumentId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,14}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** A flag the schema took (`1`/`0`/`true`/`false`, as text, a boolean or a number) as a boolean. */
function flag(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}
