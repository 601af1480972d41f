import { Type, type Static } from '@sinclair/typebox';
import { LOOKUP_KINDS, type LookupKind } from '../ports/lookup-service.js';

/** The most items one batch may hold (docs/contract.md §8). */
export const BATCH_MAX_ITEMS = 100;

/** The field that carries each kind's query in a batch item, as the single lookups name their parameter. */
export const BATCH_QUERY_FIELDS: Record<LookupKind, 'domain' | 'ip'> = {
  dns: 'domain',
  whois: 'domain',
  ip: 'ip',
  ssl: 'domain',
};

/** One item of a batch of one kind: its `type`, its query field (a string) and an optional `fresh`. */
const item = (kind: LookupKind) =>
  Type.Object(
    {
      type: Type.Literal(kind),
      [BATCH_QUERY_FIELDS[kind]]: Type.String({
        description: 'as the single lookup takes it; a string that is not a valid one is that item’s own error',
      }),
      fresh: Type.Optional(Type.Boolean({ description: 'skip the cache for this item' })),
    },
    { title: `Batch${kind[0]!.toUpperCase()}${kind.slice(1)}Item` },
  );

/**
 * `POST /api/batch` body (docs/contract.md §8), declared once: `lib/quota/batch-request.ts` reads every batch
 * against this very object, and the OpenAPI document shows it. One alternative per kind, in the order
 * of {@link LOOKUP_KINDS}, told apart by `type`; other fields are ignored.
 */
export const BatchRequest = Type.Object(
  {
    lookups: Type.Array(Type.Union(LOOKUP_KINDS.map(item)), { minItems: 1, maxItems: BATCH_MAX_ITEMS }),
  },
  { title: 'BatchRequest' },
);
export type BatchRequest = Static<typeof BatchRequest>;
