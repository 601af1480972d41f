import { Type, type Static } from '@sinclair/typebox';
import { MAX_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS, WEBHOOK_URL_MAX } from '../watches/watch-rules.js';
import { WATCH_TYPES } from '../ports/watches.js';

/**
 * `POST /api/watches` body (docs/contract.md §11), as the OpenAPI document shows it. The checks themselves
 * are `lib/watches/watch-rules.ts`, which also says what JSON Schema cannot: a domain the lookups take,
 * a webhook that is no literal private address.
 */
export const WatchCreate = Type.Object(
  {
    type: Type.Union(
      WATCH_TYPES.map((type) => Type.Literal(type)),
      { description: 'what to watch' },
    ),
    domain: Type.String({ description: 'a domain, as the lookups take it' }),
    webhook_url: Type.String({
      format: 'uri',
      maxLength: WEBHOOK_URL_MAX,
      description: 'http or https, port 80, 443 or from 1024, no user name; never a private address',
    }),
    interval_seconds: Type.Optional(
      Type.Integer({
        minimum: MIN_INTERVAL_SECONDS,
        maximum: MAX_INTERVAL_SECONDS,
        description: 'default 3600 (ssl), 86400 (whois), 900 (dns)',
      }),
    ),
  },
  { title: 'WatchCreate' },
);
export type WatchCreate = Static<typeof WatchCreate>;
