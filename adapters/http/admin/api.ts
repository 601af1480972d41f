import { Type } from '@sinclair/typebox';
import { DossierError, DossierValidationError, type KeyChanges, type NewKey, type Scope } from '../../../lib/index.js';
import {
  AdminKeyCreate,
  AdminKeyRoll,
  AdminKeyUpdate,
  AdminUsageQuery,
  checkKeyBody,
  checkUsageDays,
} from '../../../lib/internal.js';
import { readJsonObject } from '../body.js';
import { storeDown } from '../lookups.js';
import { routeGroup, type Call, type RouteGroup } from '../route.js';
import type { ResponseSpec } from '../schemas/define.js';
import { AdminData, apiError, ApiErrorWith, ApiValidationError, Exact, UsageDay } from '../schemas/shapes.js';
import { WatchData, wireWatch } from '../watch-shapes.js';
import { AdminKey, AdminKeyListQuery, AdminKeyWithSecret, keyJson, keyListQuery, PageMeta, pageJson } from './keys.js';
import { pageOf } from '../watches.js';

// The admin API (docs/contract.md §5) under `/admin/api`: keys listed, created, changed, revoked and
// rolled, their usage by day, and their watches listed and removed. Every route needs the admin token (bearer) or the panel's session
// cookie (with a matching `Origin` on writes), which the mount checks as the group declares; errors
// are interface A's bodies, with `errors` on a 422 and on the 400 of a key field holding U+0000. The
// rules are the core's: this file only reads JSON, calls `dossier.keys`, and writes JSON.

const adminError = (description: string, code: string, headers?: ResponseSpec['headers']): ResponseSpec => ({
  description,
  body: ApiErrorWith(code),
  ...(headers === undefined ? {} : { headers }),
});

/** The lock-out of an address after five wrong admin tokens in a minute (docs/contract.md §5). */
export const LOCKED_OUT = adminError(
  'Five wrong admin tokens came from this address within a minute: it is locked out for a minute, whatever the token.',
  'locked_out',
  { 'Retry-After': true },
);

const ADMIN_ERRORS = {
  400: { description: 'A key field holding U+0000: `errors` names each.', body: ApiValidationError },
  401: apiError('No admin token or session, or a wrong one.', ['missing_key', 'invalid_key'], { 'WWW-Authenticate': true }),
  403: adminError('A write with the session cookie but without a matching Origin.', 'invalid_origin'),
  404: apiError('No such key, or the admin API is off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
  413: adminError('The body is larger than 64 KiB.', 'payload_too_large'),
  422: { description: 'A bad body: `errors` names each field at fault.', body: ApiValidationError },
  429: LOCKED_OUT,
  503: storeDown(),
} satisfies Record<number, ResponseSpec>;

/**
 * A route of the admin API: listed under Administration, for the admin token or session, the key's
 * id as path parameter when the path has `:id`, a JSON body, the {@link ADMIN_ERRORS} of the statuses
 * it names, and `Cache-Control: no-store` on every answer. Served only with an admin token.
 */
const ADMIN_GROUP = {
  tag: 'Administration',
  auth: 'admin',
  session: true,
  needsAdminToken: true,
  headers: { 'Cache-Control': 'no-store' },
  idParams: Type.Object({ id: Type.String({ description: "the key's id" }) }),
  bodyTypes: ['application/json'],
  errors: ADMIN_ERRORS,
} satisfies RouteGroup<keyof typeof ADMIN_ERRORS>;
const adminRoute = routeGroup(ADMIN_GROUP);

/** A route of the admin API about one watch: the watch's id as path parameter. */
const adminWatchRoute = routeGroup({
  ...ADMIN_GROUP,
  idParams: Type.Object({ id: Type.String({ description: 'the watch id, wat_…' }) }),
});

/** The page of a list of watches, a bad `limit` or `cursor` a 422 as every bad parameter of the admin API. */
function adminPage(query: string): ReturnType<typeof pageOf> {
  try {
    return pageOf(query);
  } catch (error) {
    throw adminPageError(error);
  }
}

/** A bad page parameter (`ERR_WATCH_INVALID` from the watches) as the admin API's 422 names it. */
function adminPageError(error: unknown): unknown {
  if (!(error instanceof DossierError) || error.code !== 'ERR_WATCH_INVALID') return error;
  const field = /limit/.test(error.message) ? 'limit' : 'cursor';
  return new DossierValidationError('ERR_KEY_INVALID', { [field]: [error.message] });
}

/** The key id of the path. */
const idOf = (call: Call): string => call.params.id ?? '';

/**
 * Refuses the fields of `body` that are not in `allowed` (a client that sends `owner` to a route that
 * cannot change it must learn so, not see it ignored).
 * @throws DossierValidationError naming each unknown field
 */
function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((field) => !allowed.includes(field));
  if (unknown.length > 0) {
    throw new DossierValidationError(
      'ERR_KEY_INVALID',
      Object.fromEntries(
        unknown.map((field) => [field, [`Unknown field; this request takes ${allowed.join(', ') || 'no field'}.`]]),
      ),
    );
  }
}

/** The routes of the admin API, in the order of the reference page. */
export const ADMIN_API_ROUTES = [
  adminRoute('get', '/admin/api/keys', 'adminListKeys', {
    summary: 'The keys, newest first, a page at a time, searched and filtered',
    query: AdminKeyListQuery,
    answers: {
      200: {
        description: 'A page of the keys, with the exact count of those the filters keep.',
        body: Exact({ data: Type.Array(AdminKey), meta: PageMeta }, { title: 'AdminKeyList' }),
      },
    },
    errors: [401, 404, 422, 429, 503],
    async handle(call) {
      // `before` is the panel's (its **Previous**): the API pages forward.
      const { before: _before, ...query } = keyListQuery(call.query);
      const { data, meta } = await pageJson(call.dossier, query);
      call.reply.json({ data, meta });
    },
  }),
  adminRoute('post', '/admin/api/keys', 'adminCreateKey', {
    summary: 'Create a key (its plaintext is shown this once)',
    body: { schema: AdminKeyCreate, required: true },
    answers: { 201: { description: 'The new key and its plaintext.', body: AdminData(AdminKeyWithSecret, 'AdminKeyCreated') } },
    errors: [400, 401, 403, 404, 413, 422, 429, 503],
    async handle(call) {
      const { dossier } = call;
      const body = await readJsonObject(call.request, 'ERR_KEY_INVALID');
      // JSON's null for an optional field reads as "not given": a random owner, both scopes, the default limit, no expiry.
      checkKeyBody(AdminKeyCreate, body, dossier.options.clock.now(), ['owner', 'scopes']);
      const input: NewKey = {
        name: body.name as string,
        owner: (body.owner ?? undefined) as string | undefined,
        scopes: (body.scopes ?? undefined) as Scope[] | undefined,
        dailyLimit: body.daily_limit as number | null | undefined,
        expiresAt: body.expires_at as string | null | undefined,
      };
      const { key, secret } = await dossier.keys.create(input);
      call.reply.json({ data: { ...(await keyJson(dossier, key)), key: secret } }, 201);
    },
  }),
  adminRoute('patch', '/admin/api/keys/:id', 'adminUpdateKey', {
    summary: "Change a key's name, scopes, limit or expiry",
    body: { schema: AdminKeyUpdate, required: true },
    answers: { 200: { description: 'The key.', body: AdminData(AdminKey, 'AdminKeyAnswer') } },
    errors: [400, 401, 403, 404, 413, 422, 429, 503],
    async handle(call) {
      const { dossier } = call;
      const body = await readJsonObject(call.request, 'ERR_KEY_INVALID');
      checkKeyBody(AdminKeyUpdate, body, dossier.options.clock.now());
      const changes: KeyChanges = {};
      if (body.name !== undefined) changes.name = body.name as string;
      if (body.scopes !== undefined) changes.scopes = body.scopes as Scope[];
      if (body.daily_limit !== undefined) changes.dailyLimit = body.daily_limit as number | null;
      if (body.expires_at !== undefined) changes.expiresAt = body.expires_at as string | null;
      call.reply.json({ data: await keyJson(dossier, await dossier.keys.update(idOf(call), changes)) });
    },
  }),
  adminRoute('post', '/admin/api/keys/:id/revoke', 'adminRevokeKey', {
    summary: 'Revoke a key (revoking twice is not an error)',
    answers: { 200: { description: 'The key.', body: AdminData(AdminKey, 'AdminKeyAnswer') } },
    errors: [401, 403, 404, 413, 422, 429, 503],
    async handle(call) {
      onlyFields(await readJsonObject(call.request, 'ERR_KEY_INVALID'), []);
      call.reply.json({ data: await keyJson(call.dossier, await call.dossier.keys.revoke(idOf(call))) });
    },
  }),
  adminRoute('post', '/admin/api/keys/:id/roll', 'adminRollKey', {
    summary: 'Give a key a new secret; the old one works for grace_seconds more',
    body: { schema: AdminKeyRoll },
    answers: { 200: { description: 'The key and its new plaintext.', body: AdminData(AdminKeyWithSecret, 'AdminKeyRolled') } },
    errors: [400, 401, 403, 404, 413, 422, 429, 503],
    async handle(call) {
      const { dossier } = call;
      const body = await readJsonObject(call.request, 'ERR_KEY_INVALID');
      checkKeyBody(AdminKeyRoll, body, dossier.options.clock.now());
      const { key, secret } = await dossier.keys.roll(idOf(call), (body.grace_seconds as number | undefined) ?? 0);
      call.reply.json({ data: { ...(await keyJson(dossier, key)), key: secret } });
    },
  }),
  adminRoute('get', '/admin/api/keys/:id/watches', 'adminKeyWatches', {
    summary: 'The watches a key created, newest first, a page at a time',
    query: Type.Pick(AdminKeyListQuery, ['limit', 'cursor']),
    answers: {
      200: {
        description: 'A page of the watches, with their total.',
        body: Exact({ data: Type.Array(WatchData), meta: PageMeta }, { title: 'AdminKeyWatches' }),
      },
    },
    errors: [401, 404, 422, 429, 503],
    async handle(call) {
      const key = await call.dossier.keys.get(idOf(call));
      const page = await call.dossier.watches.pageOfKey(key.id, adminPage(call.query)).catch((error: unknown) => {
        throw adminPageError(error);
      });
      call.reply.json({ data: page.items.map(wireWatch), meta: { total: page.total, next_cursor: page.nextCursor } });
    },
  }),
  adminWatchRoute('delete', '/admin/api/watches/:id', 'adminRemoveWatch', {
    summary: 'Remove a watch, as its owner would: no check and no delivery after it',
    answers: {
      204: { description: 'Removed.' },
      404: apiError('No such watch, or the admin API is off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
    },
    errors: [401, 403, 429, 503],
    async handle(call) {
      await call.dossier.watches.removeAny(idOf(call));
      call.reply.empty(204);
    },
  }),
  adminRoute('get', '/admin/api/keys/:id/usage', 'adminKeyUsage', {
    summary: "A key's lookups per UTC day, oldest first, every day present",
    query: AdminUsageQuery,
    answers: { 200: { description: 'Lookups by day.', body: AdminData(Type.Array(UsageDay), 'AdminKeyUsage') } },
    errors: [401, 404, 422, 429, 503],
    async handle(call) {
      const days = checkUsageDays(new URLSearchParams(call.query).getAll('days'));
      const key = await call.dossier.keys.get(idOf(call));
      call.reply.json({ data: await call.dossier.quotas.history(key.id, days) });
    },
  }),
];
