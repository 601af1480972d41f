import {
  type Document,
  type DocumentChanges,
  type DocumentListOptions,
  type DocumentPage,
  DossierError,
  type NewDocument,
} from '../../lib/index.js';
import { checkLaravel, defaultOf, DOCUMENT_MESSAGES, type LaravelRules } from '../../lib/internal.js';
import type { Document as WireDocument, DocumentList } from './schemas/shapes.js';
import { DocumentCreate, DocumentListQuery, DocumentUpdate } from './schemas/documents.js';

// Interface B on the wire (docs/contract.md §3): its requests become the document service's input here,
// checked first as phpContent's Laravel API checks them (snake_case fields, numbers written as text, a
// query parameter given once), and a document or a page becomes its wire shape here.

/** Interface B's custom sentences, by the wire's field names. */
const { templateId, ...SAME_NAMED } = DOCUMENT_MESSAGES;
const MESSAGES = { ...SAME_NAMED, template_id: templateId };

const code = 'ERR_DOCUMENT_INVALID';
/** A listing's query: text as sent (no trimming), empty values not given, one value per parameter. */
const LIST_RULES: LaravelRules = { trim: [], emptyIsAbsent: true, singleValues: true, messages: MESSAGES, code };
/** A create: every string trimmed, `''` and `null` not given (so the defaults apply). */
const CREATE_RULES: LaravelRules = { trim: 'all', emptyIsAbsent: true, messages: MESSAGES, code };
/** An update: only `name` trimmed, and every field sent is checked as sent (`null` empties `result`). */
const UPDATE_RULES: LaravelRules = { trim: ['name'], emptyIsAbsent: false, messages: MESSAGES, code };

/** A listing as the wire asks for it: the service's options, and the filters that links carry. */
export interface WireListing {
  options: DocumentListOptions;
  /** The filters that were given, as written, by their wire names (`page` is not among them). */
  filters: Record<string, string>;
}

/**
 * A listing's query (as `node:querystring` parsed it) against {@link DocumentListQuery}. Empty values
 * count as not given (Laravel turns them into null); a repeated parameter, one in PHP's array notation
 * (`search[]=a`, `search[k]=a`, which Laravel reads as an array) or a value outside its allowed set is a 422.
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each bad parameter.
 */
export function listingOf(query: Record<string, unknown>): WireListing {
  const { values, written } = checkLaravel(DocumentListQuery, query, LIST_RULES);
  const filters: Record<string, string> = {};
  for (const field of Object.keys(DocumentListQuery.properties)) {
    if (field !== 'page' && typeof written[field] === 'string') filters[field] = written[field];
  }
  const options: DocumentListOptions = {};
  if (values.search !== undefined) options.search = values.search as string;
  if (values.search_by !== undefined) options.searchBy = values.search_by as DocumentListOptions['searchBy'];
  if (values.template_id !== undefined) options.templateId = values.template_id as number;
  if (values.favorite !== undefined) options.favorite = flag(values.favorite);
  if (values.sort_by !== undefined) options.sortBy = values.sort_by as DocumentListOptions['sortBy'];
  if (values.sort !== undefined) options.sort = values.sort as DocumentListOptions['sort'];
  if (values.per_page !== undefined) options.perPage = values.per_page as number;
  if (values.page !== undefined) options.page = values.page as number;
  return { options, filters };
}

/**
 * A create's fields (form-encoded or JSON) against {@link DocumentCreate}. Strings are trimmed;
 * unknown fields are ignored; `creativity` and `template_id` default to the schema's defaults.
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each bad field.
 */
export function newDocumentOf(fields: Record<string, unknown>): NewDocument {
  const { values } = checkLaravel(DocumentCreate, fields, CREATE_RULES);
  return {
    name: values.name as string,
    prompt: values.prompt as string,
    creativity: (values.creativity ?? defaultOf(DocumentCreate.properties.creativity)) as number,
    templateId: (values.template_id ?? defaultOf(DocumentCreate.properties.template_id)) as number,
  };
}

/**
 * An update's fields against {@link DocumentUpdate}: every field is optional, and only those sent are
 * returned.
 * @throws DossierValidationError `ERR_DOCUMENT_INVALID` naming each bad field.
 */
export function documentChangesOf(fields: Record<string, unknown>): DocumentChanges {
  const { values } = checkLaravel(DocumentUpdate, fields, UPDATE_RULES);
  const changes: DocumentChanges = {};
  if (values.name !== undefined) changes.name = values.name as string;
  if (values.result !== undefined) changes.result = values.result as string | null;
  if (values.favorite !== undefined) changes.favorite = flag(values.favorite);
  return changes;
}

/**
 * A document id of a path: a positive integer in canonical form (`7`, not `07`) of at most 15 digits.
 * @throws DossierError `ERR_DOCUMENT_NOT_FOUND` for any other: no document has it.
 */
export function documentIdOf(raw: string | undefined): number {
  const id = raw !== undefined && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : undefined;
  if (id === undefined || !Number.isSafeInteger(id)) throw new DossierError('ERR_DOCUMENT_NOT_FOUND', 'Resource not found.');
  return id;
}

/** A flag the schema took (`1`/`0`/`true`/`false`, as text, a boolean or a number) as a boolean. */
function flag(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

/** A document as the wire shows it (docs/contract.md §3). */
export function wireDocument(document: Document): WireDocument {
  return {
    id: document.id,
    name: document.name,
    template: document.template,
    prompt: document.prompt,
    creativity: document.creativity,
    result: document.result,
    words: document.words,
    favorite: document.favorite,
    created_at: document.createdAt,
    updated_at: document.updatedAt,
  };
}

/** The filters carried into links, in this order (then `page`). */
const LINK_ORDER = ['search', 'search_by', 'template_id', 'favorite', 'sort_by', 'sort', 'per_page'];

/** The Laravel-shaped envelope of a page, with links that carry the `filters` of its query. */
export function wireDocumentList(page: DocumentPage, filters: Record<string, string>, path: string): DocumentList {
  const link = (pageNumber: number): string => {
    const params = new URLSearchParams();
    for (const name of LINK_ORDER) {
      const value = filters[name];
      if (value !== undefined) params.set(name, value);
    }
    params.set('page', String(pageNumber));
    return `${path}?${params.toString()}`;
  };
  return {
    data: page.data.map(wireDocument),
    links: {
      first: link(1),
      last: link(page.lastPage),
      prev: page.currentPage > 1 ? link(page.currentPage - 1) : null,
      next: page.currentPage < page.lastPage ? link(page.currentPage + 1) : null,
    },
    meta: {
      current_page: page.currentPage,
      from: page.from,
      last_page: page.lastPage,
      path,
      per_page: page.perPage,
      to: page.to,
      total: page.total,
    },
    status: 200,
  };
}
