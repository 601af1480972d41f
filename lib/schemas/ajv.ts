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
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** A schema as plain JSON: TypeBox's own markers (symbols) dropped. */
export function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The compiled check of `schema`, compiled once per schema object. */
export function compiledSchema(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(plainSchema(schema));
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * The field an error is about, as the path of its property names: `/openai/model` → `['openai', 'model']`,
 * and a missing or unexpected property is the field it names (`required` of `name` at the top → `['name']`).
 * Every translation of ajv's errors into sentences (the settings', the Laravel-style answers of
 * interface B, the Koa adapter's) finds its field here.
 */
export function errorField(error: ErrorObject): string[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const { missingProperty, additionalProperty } = error.params as { missingProperty?: string; additionalProperty?: string };
  const named = missingProperty ?? additionalProperty;
  return named === undefined ? path : [...path, named];
}
