import type { Static, TSchema } from '@sinclair/typebox';
import { compiledSchema, fieldProblems, laravelSentence } from '../../../lib/internal.js';

/** What {@link validateAgainst} found: the value, typed by its schema, or the problems by field. */
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string[]> };

/**
 * Validates a value against any declared schema (the same objects the OpenAPI document shows), for an
 * embedder's own routes: Dossier's routes are validated in the core, against the same schemas, with
 * the answers of their interface (`lib/schemas/laravel.ts`, `lib/quota/batch-request.ts`,
 * `lib/keys/key-rules.ts`). Problems come as `{"<field>":["<sentence>"]}`, one sentence per problem,
 * Laravel style, a nested field named as Laravel names it (`lookups.0.domain`); a value that matches
 * none of a set of alternatives is "The selected … is invalid."
 */
export function validateAgainst<T extends TSchema>(schema: T, value: unknown): Validation<Static<T>> {
  const validate = compiledSchema(schema);
  if (validate(value)) return { ok: true, value: value as Static<T> };
  const errors: Record<string, string[]> = {};
  for (const { field, phrase, error } of fieldProblems(validate.errors ?? [])) {
    const name = field.length === 0 ? 'body' : field.join('.');
    const message =
      field.length === 0 && error.keyword === 'type'
        ? 'The request body must be a JSON object of fields.'
        : laravelSentence(name, phrase);
    const list = (errors[name] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return { ok: false, errors };
}
