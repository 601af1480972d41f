/**
 * The hand-written interface B validation as it was before the rules moved into the schemas
 * (lib/schemas/documents.ts), kept only as the oracle of validation-equivalence.test.ts: the
 * schema-driven validation must answer every input exactly as this did.
 */
import { DossierValidationError } from '../../../lib/errors.js';
import { TEMPLATE_ID_MAX, TEMPLATE_ID_MIN } from '../../../lib/documents/templates.js';

/** The longest `name`, in characters. */
export const NAME_MAX = 128;
/** The longest `prompt`, in characters. */
export const PROMPT_MAX = 2048;
/** The longest `result`, in characters. */
export const RESULT_MAX = 20480;
/** The allowed `creativity` values. */
export const CREATIVITY_VALUES: readonly number[] = [0, 0.25, 0.5, 0.75, 1];
/** The allowed `per_page` values. */
export const PER_PAGE_VALUES: readonly number[] = [10, 25, 50, 100];

/** A listing request, validated and with defaults applied. */
export interface ListQuery {
  /** Lower-cased text to look for; absent when not given or empty. */
  search?: string;
  searchBy: 'name' | 'result';
  templateId: number;
  favorite?: boolean;
  sortBy: 'id' | 'name';
  sort: 'asc' | 'desc';
  perPage: number;
  page: number;
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
export interface UpdateInput {
  name?: string;
  result?: string;
  favorite?: boolean;
}

/** Collects field errors in the order they are found, Laravel style. */
class Problems {
  readonly errors: Record<string, string[]> = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  /** @throws DossierValidationError when any problem was added. */
  throwIfAny(): void {
    const messages = Object.values(this.errors).flat();
    if (messages.length === 0) return;
    const more = messages.length - 1;
    const suffix = more === 0 ? '' : ` (and ${more} more error${more === 1 ? '' : 's'})`;
    throw new DossierValidationError(this.errors, `${messages[0]}${suffix}`);
  }
}

/** `template_id` → `template id`, as Laravel names attributes in messages. */
function label(field: string): string {
  return field.replace(/_/g, ' ');
}

function own(input: Record<string, unknown>, field: string): unknown {
  return Object.hasOwn(input, field) ? input[field] : undefined;
}

/** Length in characters (code points), as Laravel's `max` rule counts them. */
function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

/**
 * Validates the query of a listing. Empty values count as not given (Laravel turns them into null);
 * a repeated parameter, one in PHP's array notation (`search[]=a`, `search[k]=a`, which Laravel reads
 * as an array) or a value outside its allowed set is a 422.
 * @throws DossierValidationError naming each bad parameter.
 */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const problems = new Problems();
  const filters: Record<string, string> = {};
  const arrays = new Set(Object.keys(query).map((key) => /^([^[]+)\[/.exec(key)?.[1]));
  const read = (field: string): string | undefined => {
    // A parameter in array notation is an array, as a repeated one is.
    const value = arrays.has(field) ? [] : own(query, field);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      problems.add(field, `The ${label(field)} field must be a single value.`);
      return undefined;
    }
    return value;
  };
  const choose = <T extends string>(field: string, allowed: readonly T[], fallback: T): T => {
    const value = read(field);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      problems.add(field, `The selected ${label(field)} is invalid.`);
      return fallback;
    }
    filters[field] = value;
    return value as T;
  };

  const search = read('search');
  if (search !== undefined) filters.search = search;
  const searchBy = choose('search_by', ['name', 'result'] as const, 'name');

  let templateId = 1;
  const templateText = read('template_id');
  if (templateText !== undefined) {
    const parsed = parseTemplateId(templateText);
    if (parsed === undefined) {
      problems.add('template_id', `The template id field must be an integer between ${TEMPLATE_ID_MIN} and ${TEMPLATE_ID_MAX}.`);
    } else {
      templateId = parsed;
      filters.template_id = String(parsed);
    }
  }

  let favorite: boolean | undefined;
  const favoriteText = read('favorite');
  if (favoriteText !== undefined) {
    favorite = parseFlag(favoriteText);
    if (favorite === undefined) problems.add('favorite', 'The favorite field must be 1, 0, true or false.');
    else filters.favorite = favoriteText;
  }

  const sortBy = choose('sort_by', ['id', 'name'] as const, 'id');
  const sort = choose('sort', ['desc', 'asc'] as const, 'desc');
  const perPageText = choose('per_page', ['10', '25', '50', '100'] as const, '10');

  let page = 1;
  const pageText = read('page');
  if (pageText !== undefined) {
    const parsed = /^[1-9]\d{0,14}$/.test(pageText) ? Number(pageText) : undefined;
    if (parsed === undefined || !Number.isSafeInteger(parsed)) problems.add('page', 'The page field must be a positive integer.');
    else page = parsed;
  }

  problems.throwIfAny();
  return {
    ...(search !== undefined ? { search: search.toLowerCase() } : {}),
    searchBy,
    templateId,
    ...(favorite !== undefined ? { favorite } : {}),
    sortBy,
    sort,
    perPage: Number(perPageText),
    page,
    filters,
  };
}

/**
 * Validates a create request. Strings are trimmed; unknown fields are ignored.
 * @throws DossierValidationError naming each bad field.
 */
export function parseCreateInput(input: Record<string, unknown>): CreateInput {
  const problems = new Problems();
  const name = requiredText(problems, input, 'name', NAME_MAX);
  const prompt = requiredText(problems, input, 'prompt', PROMPT_MAX);

  let creativity = 0.5;
  const creativityValue = own(input, 'creativity');
  if (creativityValue !== undefined && creativityValue !== null && creativityValue !== '') {
    const parsed = parseCreativity(creativityValue);
    if (parsed === undefined) problems.add('creativity', 'The selected creativity is invalid. Use 0, 0.25, 0.5, 0.75 or 1.');
    else creativity = parsed;
  }

  let templateId = 1;
  const templateValue = own(input, 'template_id');
  if (templateValue !== undefined && templateValue !== null && templateValue !== '') {
    const parsed =
      typeof templateValue === 'number'
        ? Number.isInteger(templateValue) && templateValue >= TEMPLATE_ID_MIN && templateValue <= TEMPLATE_ID_MAX
          ? templateValue
          : undefined
        : typeof templateValue === 'string'
          ? parseTemplateId(templateValue.trim())
          : undefined;
    if (parsed === undefined) {
      problems.add('template_id', `The template id field must be an integer between ${TEMPLATE_ID_MIN} and ${TEMPLATE_ID_MAX}.`);
    } else templateId = parsed;
  }

  problems.throwIfAny();
  return { name: name ?? '', prompt: prompt ?? '', creativity, templateId };
}

/**
 * Validates an update request: every field is optional, and only those sent are returned.
 * @throws DossierValidationError naming each bad field.
 */
export function parseUpdateInput(input: Record<string, unknown>): UpdateInput {
  const problems = new Problems();
  const update: UpdateInput = {};

  const name = own(input, 'name');
  if (name !== undefined) {
    if (typeof name !== 'string') problems.add('name', 'The name field must be a string.');
    else {
      const trimmed = name.trim();
      if (trimmed === '') problems.add('name', 'The name field must not be empty.');
      else if (characters(trimmed) > NAME_MAX)
        problems.add('name', `The name field must not be greater than ${NAME_MAX} characters.`);
      else update.name = trimmed;
    }
  }

  const result = own(input, 'result');
  if (result !== undefined) {
    if (result === null) update.result = '';
    else if (typeof result !== 'string') problems.add('result', 'The result field must be a string.');
    else if (characters(result) > RESULT_MAX) {
      problems.add('result', `The result field must not be greater than ${RESULT_MAX} characters.`);
    } else update.result = result;
  }

  const favorite = own(input, 'favorite');
  if (favorite !== undefined) {
    const parsed = parseFlag(favorite);
    if (parsed === undefined) problems.add('favorite', 'The favorite field must be 1, 0, true or false.');
    else update.favorite = parsed;
  }

  problems.throwIfAny();
  return update;
}

/** A document id from a path: a positive integer in canonical form, else `undefined`. */
export function parseDocumentId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,14}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

function requiredText(problems: Problems, input: Record<string, unknown>, field: string, max: number): string | undefined {
  const value = own(input, field);
  if (value === undefined || value === null || value === '') {
    problems.add(field, `The ${field} field is required.`);
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(field, `The ${field} field must be a string.`);
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    problems.add(field, `The ${field} field is required.`);
    return undefined;
  }
  if (characters(trimmed) > max) {
    problems.add(field, `The ${field} field must not be greater than ${max} characters.`);
    return undefined;
  }
  return trimmed;
}

function parseTemplateId(text: string): number | undefined {
  if (!/^[1-9]\d?$/.test(text)) return undefined;
  const id = Number(text);
  return id >= TEMPLATE_ID_MIN && id <= TEMPLATE_ID_MAX ? id : undefined;
}

function parseCreativity(value: unknown): number | undefined {
  let number: number | undefined;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string' && /^(?:\d{1,3}(?:\.\d{1,6})?|\.\d{1,6})$/.test(value.trim())) number = Number(value.trim());
  return number !== undefined && CREATIVITY_VALUES.includes(number) ? number : undefined;
}

/** `1`/`0`/`true`/`false` as strings, booleans or the numbers 1 and 0. */
function parseFlag(value: unknown): boolean | undefined {
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}
