import { Type, type Static } from '@sinclair/typebox';
import { TEMPLATE_ID_MAX, TEMPLATE_ID_MIN } from '../documents/templates.js';

/**
 * The request shapes of interface B (CONTRACT.md §3), declared once with TypeBox (plain JSON Schema,
 * no framework): `lib/documents/validation.ts` checks every create, update and listing against these
 * very objects, and the Koa adapter's OpenAPI document shows them. A rule (field, type, range, set of
 * values, length, default) changes here or nowhere.
 */

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
/** The highest `page` (15 digits). */
export const PAGE_MAX = 999_999_999_999_999;

const literals = <T extends string | number>(values: readonly T[]) => values.map((value) => Type.Literal(value));

/** `1`/`0`/`true`/`false`, as text, a boolean or the numbers 1 and 0. */
const Flag = Type.Union([...literals(['1', '0', 'true', 'false']), Type.Boolean(), ...literals([1, 0])]);

/** `POST /api/v1/documents` body: form-encoded or JSON. Strings are trimmed; other fields are ignored. */
export const DocumentCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    prompt: Type.String({ minLength: 1, maxLength: PROMPT_MAX }),
    creativity: Type.Optional(
      Type.Union(
        [
          ...literals(CREATIVITY_VALUES),
          Type.String({
            pattern: '^(?:\\d{1,3}(?:\\.\\d{1,6})?|\\.\\d{1,6})$',
            description: 'the same number written as a form sends it',
          }),
        ],
        { default: 0.5, description: 'one of 0, 0.25, 0.5, 0.75, 1 (the temperature); default 0.5' },
      ),
    ),
    template_id: Type.Optional(
      Type.Union(
        [
          Type.Integer({ minimum: TEMPLATE_ID_MIN, maximum: TEMPLATE_ID_MAX }),
          Type.String({ pattern: '^[1-9]\\d?$', description: 'the same number written as a form sends it' }),
        ],
        { default: 1, description: `${TEMPLATE_ID_MIN} to ${TEMPLATE_ID_MAX}; default 1` },
      ),
    ),
  },
  { title: 'DocumentCreate' },
);
export type DocumentCreate = Static<typeof DocumentCreate>;

/** `PUT`/`PATCH /api/v1/documents/{id}` body: only the fields sent change; other fields are ignored. */
export const DocumentUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_MAX })),
    result: Type.Optional(Type.Union([Type.String({ maxLength: RESULT_MAX }), Type.Null()], { description: 'null empties it' })),
    favorite: Type.Optional(Flag),
  },
  { title: 'DocumentUpdate' },
);
export type DocumentUpdate = Static<typeof DocumentUpdate>;

/** The query of `GET /api/v1/documents`. */
export const DocumentListQuery = Type.Object({
  search: Type.Optional(Type.String({ description: 'a substring, case-insensitively, of the field search_by names' })),
  search_by: Type.Optional(Type.Union(literals(['name', 'result'] as const), { default: 'name' })),
  template_id: Type.Optional(Type.Integer({ minimum: TEMPLATE_ID_MIN, maximum: TEMPLATE_ID_MAX, default: 1 })),
  favorite: Type.Optional(Type.Union(literals(['1', '0', 'true', 'false'] as const))),
  sort_by: Type.Optional(Type.Union(literals(['id', 'name'] as const), { default: 'id' })),
  sort: Type.Optional(Type.Union(literals(['desc', 'asc'] as const), { default: 'desc' })),
  per_page: Type.Optional(Type.Union(literals(PER_PAGE_VALUES), { default: 10 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 })),
});
export type DocumentListQuery = Static<typeof DocumentListQuery>;
