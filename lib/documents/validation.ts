import type { DocumentChanges, DocumentListOptions, NewDocument } from '../ports/document-service.js';
import type { TObject } from '@sinclair/typebox';
import { DossierValidationError } from '../errors.js';
import { checkLaravel, defaultOf, laravelSentence, type LaravelRules } from '../schemas/laravel.js';
import { hasNul, NUL_PHRASE, wellFormed } from '../schemas/text.js';
import { DocumentChangesSchema, DocumentListOptionsSchema, NewDocumentSchema } from '../schemas/documents.js';
import type { DocumentQuery, StoredDocument } from '../ports/document-store.js';
import { searchText } from '../records/stored-document.js';

// The rules live in the schemas (lib/schemas/documents.ts). The HTTP API checks its own wire shapes of
// the same requests first (adapters/http), so that what reaches these checks from it always passes.

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
export const DOCUMENT_MESSAGES = {
  creativity: 'The selected :attribute is invalid. Use :values.',
  templateId: 'The :attribute field must be an integer between :min and :max.',
  favorite: 'The :attribute field must be :values.',
  page: 'The :attribute field must be a positive integer.',
} as const;

const code = 'ERR_DOCUMENT_INVALID';
/** A listing: text as given (no trimming), empty values not given. */
const LIST_RULES: LaravelRules = { trim: [], emptyIsAbsent: true, messages: DOCUMENT_MESSAGES, code };
/** A create: every string trimmed, `''` and `null` not given (so the defaults apply). */
const CREATE_RULES: LaravelRules = { trim: 'all', emptyIsAbsent: true, messages: DOCUMENT_MESSAGES, code };
/** An update: only `name` trimmed, and every field given is checked as given (`null` empties `result`). */
const UPDATE_RULES: LaravelRules = { trim: ['name'], emptyIsAbsent: false, messages: DOCUMENT_MESSAGES, code };

const LIST_FIELDS = DocumentListOptionsSchema.properties;
const CREATE_FIELDS = NewDocumentSchema.properties;

/**
 * `input` as the plain record the checks read (a caller may pass anything at run time), refusing the
 * fields `schema` does not name (a misspelled option, or the HTTP API's `per_page`, must not be
 * ignored) and text holding U+0000; lone surrogates in text become U+FFFD (lib/schemas/text.ts).
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each unknown field, or each field with U+0000.
 */
function fields(schema: TObject, input: object | undefined): Record<string, unknown> {
  const record = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const known = Object.keys(schema.properties);
  const unknown = Object.keys(record).filter((field) => !known.includes(field) && record[field] !== undefined);
  if (unknown.length > 0) {
    const takes = `Unknown field; this takes ${known.join(', ')}.`;
    throw new DossierValidationError('ERR_DOCUMENT_INVALID', Object.fromEntries(unknown.map((field) => [field, [takes]])));
  }
  const nul = known.filter((field) => typeof record[field] === 'string' && hasNul(record[field]));
  if (nul.length > 0) {
    const errors = Object.fromEntries(nul.map((field) => [field, [laravelSentence(field, NUL_PHRASE)]]));
    const more = nul.length - 1;
    const suffix = more === 0 ? '' : ` (and ${more} more error${more === 1 ? '' : 's'})`;
    throw new DossierValidationError('ERR_DOCUMENT_INVALID', errors, `${errors[nul[0]!]![0]}${suffix}`);
  }
  const text = Object.entries(record).map(([field, value]) => [field, typeof value === 'string' ? wellFormed(value) : value]);
  return Object.fromEntries(text) as Record<string, unknown>;
}

/**
 * Validates a listing's options against {@link DocumentListOptionsSchema}; the defaults are the schema's.
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each bad option.
 */
export function parseListOptions(options: DocumentListOptions | undefined): DocumentQuery {
  const { values } = checkLaravel(DocumentListOptionsSchema, fields(DocumentListOptionsSchema, options), LIST_RULES);
  const pick = <K extends keyof typeof LIST_FIELDS>(field: K): unknown => values[field] ?? defaultOf(LIST_FIELDS[field]);
  const search = values.search as string | undefined;
  const favorite = values.favorite as boolean | undefined;
  return {
    ...(search !== undefined ? { search: searchText(search) } : {}),
    searchBy: pick('searchBy') as DocumentQuery['searchBy'],
    templateId: pick('templateId') as number,
    ...(favorite !== undefined ? { favorite } : {}),
    sortBy: pick('sortBy') as DocumentQuery['sortBy'],
    sort: pick('sort') as DocumentQuery['sort'],
    perPage: pick('perPage') as number,
    page: pick('page') as number,
  };
}

/**
 * Validates a create request against {@link NewDocumentSchema}. Strings are trimmed; an unknown field
 * is refused; `creativity` and `templateId` default to the schema's defaults.
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each bad field.
 */
export function parseCreateInput(input: NewDocument): CreateInput {
  const { values } = checkLaravel(NewDocumentSchema, fields(NewDocumentSchema, input), CREATE_RULES);
  return {
    name: values.name as string,
    prompt: values.prompt as string,
    creativity: (values.creativity ?? defaultOf(CREATE_FIELDS.creativity)) as number,
    templateId: (values.templateId ?? defaultOf(CREATE_FIELDS.templateId)) as number,
  };
}

/**
 * Validates an update request against {@link DocumentChangesSchema}: every field is optional, and only
 * those given are returned.
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each bad field.
 */
export function parseUpdateInput(changes: DocumentChanges): UpdateInput {
  const { values } = checkLaravel(DocumentChangesSchema, fields(DocumentChangesSchema, changes), UPDATE_RULES);
  const update: UpdateInput = {};
  if (values.name !== undefined) update.name = values.name as string;
  if (values.result !== undefined) update.result = (values.result as string | null) ?? '';
  if (values.favorite !== undefined) update.favorite = values.favorite as boolean;
  return update;
}

/** A document id: a positive safe integer, else `undefined` (no document has it). */
export function documentId(id: unknown): number | undefined {
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
