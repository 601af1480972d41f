import type { TSchema } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * A check that JSON Schema cannot say (a file exists, a URL's scheme, a folder is writable), named in a
 * schema as `{"check": "<name>"}`: true when the value passes; false for the problem its schema's
 * `message` states; or the problems, each a sentence of its own.
 */
export type Check = (value: unknown) => boolean | string[];

const checks = new Map<string, Check>();

/** Makes `check` known to every schema as `{"check": name}`; returns the name. */
export function defineCheck(name: string, check: Check): string {
  checks.set(name, check);
  return name;
}

/**
 * The one JSON Schema validator of Dossier (ajv, draft 2020-12 as OpenAPI 3.1 takes it), shared by the
 * core's request checks, the settings' and the Koa adapter's. `allErrors` so that every field at fault
 * is named; `verbose` so that an error carries the value and the schema that refused it;
 * `maxLength`/`minLength` count characters (code points), as Laravel's `max` rule does.
 */
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, verbose: true }));
ajv.addKeyword({
  keyword: 'check',
  schemaType: 'string',
  errors: true,
  validate: function run(name: string, value: unknown, parentSchema?: object): boolean {
    const check = checks.get(name);
    if (check === undefined) throw new Error(`no check named "${name}"`);
    const verdict = check(value);
    if (verdict === true) return true;
    const problems = verdict === false ? [] : verdict;
    // As `verbose` does for ajv's own keywords: the value refused, and the schema that refused it.
    const about = { keyword: 'check', data: value, parentSchema };
    (run as { errors?: Partial<ErrorObject>[] }).errors =
      problems.length === 0
        ? [{ ...about, params: { check: name } }]
        : problems.map((message) => ({ ...about, message, params: { check: name, problem: true } }));
    return false;
  },
});

/** `make`, run once per object (a schema, a table of settings) and its result kept while the object lives. */
export function oncePer<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (!made.has(key)) made.set(key, make(key));
    return made.get(key)!;
  };
}

/** A schema as plain JSON: TypeBox's own markers (symbols) dropped. */
export function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The compiled check of `schema`, compiled once per schema object. */
export const compiledSchema = oncePer((schema: TSchema): ValidateFunction => ajv.compile(plainSchema(schema)));

/**
 * The field an error is about, as the path of its property names: `/openai/model` → `['openai', 'model']`,
 * and a missing or unexpected property is the field it names.
 */
function errorField(error: ErrorObject): string[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const { missingProperty, additionalProperty } = error.params as { missingProperty?: string; additionalProperty?: string };
  const named = missingProperty ?? additionalProperty;
  return named === undefined ? path : [...path, named];
}

/** One field's problem, in words that each interface frames its own way (see {@link fieldProblems}). */
export interface FieldProblem {
  /** The path of property names to the field: `['openai', 'model']`. */
  field: string[];
  /** The end of a sentence about the field (`must not be empty`), or null: the value is none of those allowed. */
  phrase: string | null;
  /** What ajv said. */
  error: ErrorObject;
}

/** A schema's `message`: one for every keyword, or one by keyword; `{input}` and `{length}` are the value's. */
type DeclaredMessage = string | Record<string, string>;

/**
 * The one translation of ajv's errors into words. Each interface frames the phrases its own way: the
 * settings' `DOSSIER_DAILY_LIMIT must…`, interface B's and `validateAgainst`'s Laravel sentences
 * `The daily limit field must….`, the batch's `lookups[0].fresh must….`. A phrase is a named check's own
 * problem; else the `message` that the refusing schema declares for its keyword; else Laravel's wording
 * of the keyword; else null. Inside a set of alternatives that failed, the null alternative's complaint
 * says nothing: when one other alternative is left, its complaints stand, else the set's own (null: the
 * value is none of those allowed).
 */
export function fieldProblems(errors: readonly ErrorObject[]): FieldProblem[] {
  const hidden = new Set<ErrorObject>();
  const sets = errors.filter(isAlternatives).sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const set of sets) {
    if (hidden.has(set)) continue;
    const prefix = `${set.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of errors) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const isNullBranch = (list: ErrorObject[]) => list.every((error) => error.keyword === 'type' && error.params.type === 'null');
    const left = [...branches.values()].filter((list) => !isNullBranch(list));
    const inside = [...branches.values()].flat();
    const kept = left.length === 1 ? new Set(left[0]) : new Set<ErrorObject>();
    if (left.length === 1) hidden.add(set);
    for (const error of inside) if (!kept.has(error)) hidden.add(error);
  }
  return errors
    .filter((error) => !hidden.has(error))
    .map((error) => ({ field: errorField(error), phrase: phraseOf(error), error }));
}

function isAlternatives(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

function phraseOf(error: ErrorObject): string | null {
  if (error.keyword === 'check' && (error.params as { problem?: boolean }).problem) return error.message ?? null;
  const declared = (error.parentSchema as { message?: DeclaredMessage } | undefined)?.message;
  const template = typeof declared === 'string' ? declared : declared?.[error.keyword];
  if (template !== undefined) {
    const value: unknown = error.data;
    const length = typeof value === 'string' || Array.isArray(value) ? String(value.length) : '';
    return template.replace(/\{input\}/g, String(value)).replace(/\{length\}/g, length);
  }
  const { limit, type } = error.params as { limit?: number; type?: string };
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed';
    case 'type':
      return type === 'boolean' ? 'must be true or false' : `must be ${withArticle(String(type))}`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
    case 'maxLength':
      return `must not be greater than ${limit} characters`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must not be greater than ${limit}`;
    case 'minItems':
      return `must have at least ${limit} item${limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must not have more than ${limit} items`;
    case 'uniqueItems':
      return 'has a duplicate value';
    case 'pattern':
    case 'format':
      return 'format is invalid';
    default:
      return null;
  }
}

/** `integer` → `an integer`; ajv's `string,null` → `a string or null`. */
function withArticle(type: string): string {
  return type
    .split(',')
    .map((name) => (/^[aeiou]/.test(name) ? `an ${name}` : name === 'null' ? name : `a ${name}`))
    .join(' or ');
}
