import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { compiledSchema, errorField } from '../../../lib/internal.js';

/** What {@link validateAgainst} found: the value, typed by its schema, or the problems by field. */
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string[]> };

/** `/lookups/0/domain` → `lookups.0.domain`, the way Laravel names nested fields; the whole body is `body`. */
function fieldOf(error: ErrorObject): string {
  const parts = errorField(error);
  return parts.length === 0 ? 'body' : parts.join('.');
}

function sentence(error: ErrorObject, field: string): string {
  const label = field.replace(/_/g, ' ');
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `The ${label} field is required.`;
    case 'additionalProperties':
      return `The ${label} field is not allowed.`;
    case 'type':
      return field === 'body'
        ? 'The request body must be a JSON object of fields.'
        : `The ${label} field must be ${article(String(params.type))}.`;
    case 'minLength':
      return params.limit === 1
        ? `The ${label} field must not be empty.`
        : `The ${label} field must be at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `The ${label} field must not be greater than ${String(params.limit)} characters.`;
    case 'minimum':
      return `The ${label} field must be at least ${String(params.limit)}.`;
    case 'maximum':
      return `The ${label} field must not be greater than ${String(params.limit)}.`;
    case 'minItems':
      return `The ${label} field must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}.`;
    case 'maxItems':
      return `The ${label} field must not have more than ${String(params.limit)} items.`;
    case 'uniqueItems':
      return `The ${label} field has a duplicate value.`;
    case 'pattern':
    case 'format':
      return `The ${label} field format is invalid.`;
    default:
      return `The selected ${label} is invalid.`;
  }
}

function article(type: string): string {
  const name = type === 'integer' ? 'an integer' : type === 'array' ? 'an array' : type === 'object' ? 'an object' : `a ${type}`;
  return name.replace(',', ' or ');
}

/**
 * Validates a value against any declared schema (the same objects the OpenAPI document shows), for an
 * embedder's own routes: Dossier's routes are validated in the core, against the same schemas, with
 * the answers of their interface (`lib/schemas/laravel.ts`, `lib/quota/batch-request.ts`,
 * `lib/keys/key-rules.ts`). Problems come as `{"<field>":["<sentence>"]}`, one sentence
 * per problem, Laravel style; a value that matches none of a set of alternatives is "The selected … is invalid."
 */
export function validateAgainst<T extends TSchema>(schema: T, value: unknown): Validation<Static<T>> {
  const validate = compiledSchema(schema);
  if (validate(value)) return { ok: true, value: value as Static<T> };
  const all = validate.errors ?? [];
  // Inside a set of alternatives, each branch's own complaints say less than "none of them fits".
  const alternatives = all
    .filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .map((error) => error.instancePath);
  const errors: Record<string, string[]> = {};
  for (const error of all) {
    const isAlternative = error.keyword === 'anyOf' || error.keyword === 'oneOf';
    const insideAlternative = alternatives.some(
      (path) => (!isAlternative && error.instancePath === path) || error.instancePath.startsWith(`${path}/`),
    );
    if (insideAlternative) continue;
    const field = fieldOf(error);
    const message = sentence(error, field);
    const list = (errors[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return { ok: false, errors };
}
