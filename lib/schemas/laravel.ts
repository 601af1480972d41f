import type { TObject, TSchema } from '@sinclair/typebox';
import { DossierValidationError, type ErrorCode } from '../errors.js';
import { compiledSchema, fieldProblems, oncePer, plainSchema, type FieldProblem } from './ajv.js';

/**
 * The thin layer that makes a JSON Schema check answer as Laravel's validator does (interface B is
 * phpContent-compatible). The rules themselves (which fields, their types, ranges, sets of values,
 * lengths, defaults, which are required) are read from the schema and checked by ajv; this layer
 * only does what JSON Schema cannot say:
 *
 * - before the check, as Laravel's middleware and form input do: `''` and `null` may count as not sent
 *   (ConvertEmptyStringsToNull; judged before trimming, as Dossier always did, so that `'  '` for an
 *   optional field is a bad value, not a missing one), text is trimmed (TrimStrings), a query parameter that is not one
 *   string (repeated, or in PHP's array notation `search[]=a`) is refused, a blank string does not
 *   satisfy a required field (Laravel's `required`), and a number written as text becomes the number,
 *   when the field's schema takes a number: written as the schema's own text form says (the `pattern`
 *   of its string alternative) or, without one, as a canonical integer (`72`, not `072` or `7.2e1`);
 * - after it: the first problem of each field becomes one sentence in Laravel's wording, fields in the
 *   schema's order, with custom sentences by attribute (Laravel's `messages()`) whose `:values`,
 *   `:min` and `:max` are read from the schema.
 */
export interface LaravelRules {
  /** Whose text is trimmed before the check: every field's, or those named. */
  trim: 'all' | readonly string[];
  /** `''` and `null` count as not sent, so the schema's default applies (ConvertEmptyStringsToNull). */
  emptyIsAbsent: boolean;
  /** A query string: a value that is not one string is "The … field must be a single value." */
  singleValues?: boolean;
  /** Custom sentences by field, with `:attribute`, `:values`, `:min` and `:max`. */
  messages?: Readonly<Record<string, string>>;
  /** The code of the domain whose rules these are (`ERR_DOCUMENT_INVALID`). */
  code: ErrorCode;
}

/** What {@link checkLaravel} read: the fields sent, as checked, and their text as sent (after trimming). */
export interface LaravelInput {
  /** Each field that was sent, as the schema took it (numbers written as text are numbers). */
  values: Record<string, unknown>;
  /** Each field that was sent, as it was written (after trimming). */
  written: Record<string, unknown>;
}

/** A field's schema as plain JSON. */
type Json = Record<string, unknown>;

/** A canonical integer numeral: the text form of an integer field without a pattern of its own. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d*)$/;

/**
 * Checks `input` against `schema` (an object schema) with Laravel's manners, per {@link LaravelRules}.
 * Fields the schema does not name are ignored.
 * @throws DossierValidationError with `{"<field>":["<sentence>"]}` for each field at fault, in the
 *   schema's order, and a message that is the first sentence and how many more there are.
 */
export function checkLaravel(schema: TObject, input: Record<string, unknown>, rules: LaravelRules): LaravelInput {
  const properties = propertiesOf(schema);
  const required = new Set(schema.required ?? []);
  const arrays = rules.singleValues
    ? new Set(Object.keys(input).map((key) => /^([^[]+)\[/.exec(key)?.[1]))
    : new Set<string | undefined>();
  const first: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const written: Record<string, unknown> = {};

  for (const [field, fieldSchema] of Object.entries(properties)) {
    // A parameter in array notation is an array, as a repeated one is.
    let value = arrays.has(field) ? [] : Object.hasOwn(input, field) ? input[field] : undefined;
    if (value === undefined || (rules.emptyIsAbsent && (value === null || value === ''))) continue;
    if (rules.singleValues && typeof value !== 'string') {
      first[field] = fill('The :attribute field must be a single value.', field, fieldSchema);
      continue;
    }
    if (typeof value === 'string' && (rules.trim === 'all' || rules.trim.includes(field))) value = value.trim();
    // Laravel's `required` is not satisfied by a blank string.
    if (value === '' && required.has(field)) continue;
    written[field] = value;
    values[field] = typeof value === 'string' ? numeral(fieldSchema, value) : value;
  }

  const validate = compiledSchema(schema);
  if (!validate(values)) {
    const byField = new Map<string, FieldProblem[]>();
    for (const problem of fieldProblems(validate.errors ?? [])) {
      const field = problem.field[0] ?? '';
      byField.set(field, [...(byField.get(field) ?? []), problem]);
    }
    for (const [field, fieldSchema] of Object.entries(properties)) {
      const problems = byField.get(field);
      if (problems !== undefined && first[field] === undefined) first[field] = sentence(field, fieldSchema, problems, rules);
    }
  }

  const ordered = Object.keys(properties).filter((field) => first[field] !== undefined);
  if (ordered.length > 0) {
    const errors = Object.fromEntries(ordered.map((field) => [field, [first[field]!]]));
    const more = ordered.length - 1;
    const suffix = more === 0 ? '' : ` (and ${more} more error${more === 1 ? '' : 's'})`;
    throw new DossierValidationError(rules.code, errors, `${first[ordered[0]!]}${suffix}`);
  }
  return { values, written };
}

/** The fields of an object schema as plain JSON, read once per schema object. */
const propertiesOf = oncePer((schema: TObject) => (plainSchema(schema).properties ?? {}) as Record<string, Json>);

/** The alternatives of a field's schema (itself when it has none). */
function branches(schema: Json): Json[] {
  return Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : [schema];
}

/** Text that writes a number becomes that number when the field's schema takes numbers and no text as it is. */
function numeral(schema: Json, text: string): unknown {
  const all = branches(schema);
  const numeric = all.some((b) => b.type === 'integer' || b.type === 'number' || typeof b.const === 'number');
  const takesText = all.some((b) => typeof b.const === 'string' || (b.type === 'string' && b.pattern === undefined));
  if (!numeric || takesText) return text;
  const form = all.find((b) => b.type === 'string' && typeof b.pattern === 'string');
  const matches = form !== undefined ? new RegExp(String(form.pattern), 'u').test(text) : CANONICAL_INTEGER.test(text);
  return matches ? Number(text) : text;
}

/** The sentence of a field's first problem: Laravel's `required`, else the field's custom sentence, else the problem's own. */
function sentence(field: string, schema: Json, problems: FieldProblem[], rules: LaravelRules): string {
  const required = problems.find((problem) => problem.error.keyword === 'required');
  const custom = rules.messages?.[field];
  if (required === undefined && custom !== undefined) return fill(custom, field, schema);
  return laravelSentence(field, (required ?? problems[0]!).phrase);
}

/** A problem as Laravel words it: `The daily limit field must be at least 1.`, or `The selected sort is invalid.` */
export function laravelSentence(field: string, phrase: string | null): string {
  const attribute = attributeOf(field);
  return phrase === null ? `The selected ${attribute} is invalid.` : `The ${attribute} field ${phrase}.`;
}

/** A field as a sentence names it: `template_id` and `templateId` are both `template id`. */
function attributeOf(field: string): string {
  return field
    .replace(/_/g, ' ')
    .replace(/([a-z\d])([A-Z])/g, (_, before: string, capital: string) => `${before} ${capital.toLowerCase()}`);
}

/**
 * A sentence with its placeholders: `:attribute` (`template_id` → `template id`), `:values` (the
 * field's allowed values, `0, 0.25 or 1`), `:min` and `:max` (its numeric bounds).
 */
function fill(template: string, field: string, schema: Json): string {
  const all = branches(schema);
  const values = [...new Set(all.filter((b) => b.const !== undefined).map((b) => String(b.const)))];
  const list = values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values.at(-1)}` : (values[0] ?? '');
  const bound = (name: 'minimum' | 'maximum') => String(all.find((b) => typeof b[name] === 'number')?.[name] ?? '');
  return template
    .replace(/:attribute/g, attributeOf(field))
    .replace(/:values/g, list)
    .replace(/:min\b/g, bound('minimum'))
    .replace(/:max\b/g, bound('maximum'));
}

/** The default a field's schema declares. */
export function defaultOf(schema: TSchema): unknown {
  return (schema as { default?: unknown }).default;
}
