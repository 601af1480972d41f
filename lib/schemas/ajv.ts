import type { TSchema } from '@sinclair/typebox';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * The one JSON Schema validator of Dossier (ajv, draft 2020-12 as OpenAPI 3.1 takes it), shared by the
 * core's request checks and the Koa adapter's. `allErrors` so that every field at fault is named;
 * `maxLength`/`minLength` count characters (code points), as Laravel's `max` rule does.
 */
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
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
