import { Type } from '@sinclair/typebox';
import {
  CREATIVITY_VALUES,
  DocumentName,
  DocumentPrompt,
  DocumentResult,
  literals,
  PAGE_MAX,
  PER_PAGE_VALUES,
  SEARCH_FIELDS,
  SORT_FIELDS,
  SORT_ORDERS,
  TEMPLATE_ID_MAX,
  TEMPLATE_ID_MIN,
} from '../../../lib/internal.js';

/**
 * The request shapes of interface B on the wire (docs/contract.md §3): snake_case as phpContent's Laravel
 * API takes them, with the numbers a form writes as text. The routes validate each request against
 * these very objects (adapters/http/document-shapes.ts) and the OpenAPI document shows them; the bounds
 * are the library's (lib/schemas/documents.ts).
 */

/** `1`/`0`/`true`/`false`, as text, a boolean or the numbers 1 and 0. */
const Flag = Type.Union([...literals(['1', '0', 'true', 'false']), Type.Boolean(), ...literals([1, 0])]);

/** `POST /api/v1/documents` body: form-encoded or JSON. Strings are trimmed; other fields are ignored. */
export const DocumentCreate = Type.Object(
  {
    name: DocumentName,
    prompt: DocumentPrompt,
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

/** `PUT`/`PATCH /api/v1/documents/{id}` body: only the fields sent change; other fields are ignored. */
export const DocumentUpdate = Type.Object(
  {
    name: Type.Optional(DocumentName),
    result: Type.Optional(Type.Union([DocumentResult, Type.Null()], { description: 'null empties it' })),
    favorite: Type.Optional(Flag),
  },
  { title: 'DocumentUpdate' },
);

/** The query of `GET /api/v1/documents`. */
export const DocumentListQuery = Type.Object({
  search: Type.Optional(Type.String({ description: 'a substring, case-insensitively, of the field search_by names' })),
  search_by: Type.Optional(Type.Union(literals(SEARCH_FIELDS), { default: 'name' })),
  template_id: Type.Optional(Type.Integer({ minimum: TEMPLATE_ID_MIN, maximum: TEMPLATE_ID_MAX, default: 1 })),
  favorite: Type.Optional(Type.Union(literals(['1', '0', 'true', 'false'] as const))),
  sort_by: Type.Optional(Type.Union(literals(SORT_FIELDS), { default: 'id' })),
  sort: Type.Optional(Type.Union(literals(SORT_ORDERS), { default: 'desc' })),
  per_page: Type.Optional(Type.Union(literals(PER_PAGE_VALUES), { default: 10 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 })),
});
