import { Type } from '@sinclair/typebox';
import { TEMPLATE_ID_MAX, TEMPLATE_ID_MIN } from '../documents/templates.js';

export { TEMPLATE_ID_MAX, TEMPLATE_ID_MIN };

/**
 * What the document service takes (docs/contract.md §3), in the library's own terms, declared with TypeBox
 * (plain JSON Schema): `lib/documents/validation.ts` checks every create, update and listing against
 * these. The HTTP API's shapes of the same requests (snake_case, numbers written as text) are declared
 * in adapters/http/schemas/documents.ts from the bounds below, so that a rule changes in one place.
 */

/** The longest `name`, in characters. */
export const NAME_MAX = 128;
/** The longest `prompt`, in characters. */
export const PROMPT_MAX = 2048;
/** The longest `result`, in characters. */
export const RESULT_MAX = 20480;
/** The allowed `creativity` values. */
export const CREATIVITY_VALUES: readonly number[] = [0, 0.25, 0.5, 0.75, 1];
/** The page sizes the HTTP API takes (phpContent's). */
export const PER_PAGE_VALUES: readonly number[] = [10, 25, 50, 100];
/** The largest page the library gives (any size from 1 up to it). */
export const PER_PAGE_MAX = 100;
/** The highest `page` (15 digits). */
export const PAGE_MAX = 999_999_999_999_999;

/** One literal schema a value. */
export const literals = <T extends string | number>(values: readonly T[]) => values.map((value) => Type.Literal(value));

/** The text of a document's name. */
export const DocumentName = Type.String({ minLength: 1, maxLength: NAME_MAX });
/** The text a document is written from. */
export const DocumentPrompt = Type.String({ minLength: 1, maxLength: PROMPT_MAX });
/** A document's text, as stored. */
export const DocumentResult = Type.String({ maxLength: RESULT_MAX });
/** What a listing searches in. */
export const SEARCH_FIELDS = ['name', 'result'] as const;
/** What a listing sorts by. */
export const SORT_FIELDS = ['id', 'name'] as const;
/** A listing's orders. */
export const SORT_ORDERS = ['desc', 'asc'] as const;

/** `documents.create` (NewDocument). */
export const NewDocumentSchema = Type.Object({
  name: DocumentName,
  prompt: DocumentPrompt,
  creativity: Type.Optional(Type.Union(literals(CREATIVITY_VALUES), { default: 0.5 })),
  templateId: Type.Optional(Type.Integer({ minimum: TEMPLATE_ID_MIN, maximum: TEMPLATE_ID_MAX, default: 1 })),
});

/** `documents.update` (DocumentChanges). */
export const DocumentChangesSchema = Type.Object({
  name: Type.Optional(DocumentName),
  result: Type.Optional(Type.Union([DocumentResult, Type.Null()])),
  favorite: Type.Optional(Type.Boolean()),
});

/** `documents.list` (DocumentListOptions). */
export const DocumentListOptionsSchema = Type.Object({
  search: Type.Optional(Type.String()),
  searchBy: Type.Optional(Type.Union(literals(SEARCH_FIELDS), { default: 'name' })),
  templateId: Type.Optional(Type.Integer({ minimum: TEMPLATE_ID_MIN, maximum: TEMPLATE_ID_MAX, default: 1 })),
  favorite: Type.Optional(Type.Boolean()),
  sortBy: Type.Optional(Type.Union(literals(SORT_FIELDS), { default: 'id' })),
  sort: Type.Optional(Type.Union(literals(SORT_ORDERS), { default: 'desc' })),
  perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: PER_PAGE_MAX, default: 10 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 })),
});
