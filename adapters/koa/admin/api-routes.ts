import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  AdminKeyCreate,
  AdminKeyRoll,
  AdminKeyUpdate,
  type Dossier,
  DossierError,
  type KeyChanges,
  type NewKey,
  type Scope,
  wireWatch,
} from '../../../lib/index.js';
import { checkKeyBody, checkUsageDays } from '../../../lib/internal.js';
import { answerApiError, answerCoreError } from '../error-middleware.js';
import type { AccessCheck, AdminAccess } from './access.js';
import { keyJson } from '../../keys/key-json.js';
import { BodyTooLarge, listJson, onlyFields, readJsonObject } from './wire.js';

/**
 * The admin API (CONTRACT.md §5) under `/admin/api`: keys listed, created, changed, revoked and rolled,
 * their usage by day, and their watches listed and removed. Every route needs the admin token (bearer)
 * or the panel's session cookie (with a matching `Origin` on writes); errors are interface A's bodies,
 * with `errors` on a 422. The rules are the core's: this file only reads JSON, calls `dossier.keys` and
 * `dossier.watches`, and writes JSON.
 */
export function addAdminApiRoutes(router: Router, dossier: Dossier, access: AdminAccess): void {
  const route = (handler: (ctx: Context) => Promise<void>) => adminApi(access, handler);

  router.get(
    '/admin/api/keys',
    route(async (ctx) => {
      ctx.body = { data: await listJson(dossier) };
    }),
  );

  router.post(
    '/admin/api/keys',
    route(async (ctx) => {
      const body = await readJsonObject(ctx);
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
      ctx.status = 201;
      ctx.body = { data: { ...(await keyJson(dossier, key)), key: secret } };
    }),
  );

  router.patch(
    '/admin/api/keys/:id',
    route(async (ctx) => {
      const body = await readJsonObject(ctx);
      checkKeyBody(AdminKeyUpdate, body, dossier.options.clock.now());
      const changes: KeyChanges = {};
      if (body.name !== undefined) changes.name = body.name as string;
      if (body.scopes !== undefined) changes.scopes = body.scopes as Scope[];
      if (body.daily_limit !== undefined) changes.dailyLimit = body.daily_limit as number | null;
      if (body.expires_at !== undefined) changes.expiresAt = body.expires_at as string | null;
      ctx.body = { data: await keyJson(dossier, await dossier.keys.update(idOf(ctx), changes)) };
    }),
  );

  router.post(
    '/admin/api/keys/:id/revoke',
    route(async (ctx) => {
      onlyFields(await readJsonObject(ctx), []);
      ctx.body = { data: await keyJson(dossier, await dossier.keys.revoke(idOf(ctx))) };
    }),
  );

  router.post(
    '/admin/api/keys/:id/roll',
    route(async (ctx) => {
      const body = await readJsonObject(ctx);
      checkKeyBody(AdminKeyRoll, body, dossier.options.clock.now());
      const { key, secret } = await dossier.keys.roll(idOf(ctx), (body.grace_seconds as number | undefined) ?? 0);
      ctx.body = { data: { ...(await keyJson(dossier, key)), key: secret } };
    }),
  );

  router.get(
    '/admin/api/keys/:id/watches',
    route(async (ctx) => {
      const key = await dossier.keys.get(idOf(ctx));
      ctx.body = { data: (await dossier.watches.ofKey(key.id)).map(wireWatch) };
    }),
  );

  router.delete(
    '/admin/api/watches/:id',
    route(async (ctx) => {
      await dossier.watches.removeAny(idOf(ctx));
      ctx.status = 204;
    }),
  );

  router.get(
    '/admin/api/keys/:id/usage',
    route(async (ctx) => {
      const days = checkUsageDays(new URLSearchParams(ctx.querystring).getAll('days'));
      const key = await dossier.keys.get(idOf(ctx));
      ctx.body = { data: await dossier.quotas.history(key.id, days) };
    }),
  );
}

/** Answers a request whose credentials did not pass, as {@link REFUSALS} says, with `Retry-After` when locked out. */
export function refuse(ctx: Context, check: Exclude<AccessCheck, { ok: true }>): void {
  const [status, code, message] = REFUSALS[check.reason];
  if (check.reason === 'locked') ctx.set('Retry-After', String(check.retryAfterSeconds));
  answerApiError(ctx, status, code, message);
}

function idOf(ctx: Context): string {
  return ctx.params.id ?? '';
}

/** The answer to a request without working credentials, by what was wrong with them. */
const REFUSALS = {
  origin: [403, 'invalid_origin', "A change made with the panel's session cookie must come from the panel itself (Origin)."],
  wrong: [401, 'invalid_key', 'The admin token or session is wrong or has ended.'],
  missing: [401, 'missing_key', 'Send the admin token as "Authorization: Bearer <DOSSIER_ADMIN_TOKEN>", or sign in at /admin.'],
  locked: [429, 'locked_out', 'Too many wrong admin tokens came from your address: it is locked out for a minute.'],
} as const;

/**
 * Wraps an admin API handler: the credentials first (nothing is read or written without them), then
 * the handler, whose core errors become interface A's error body, with `errors` on a 422.
 */
function adminApi(access: AdminAccess, handler: (ctx: Context) => Promise<void>): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      const check = await access.check(ctx);
      if (!check.ok) {
        refuse(ctx, check);
        return;
      }
      await handler(ctx);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        answerApiError(ctx, 413, 'payload_too_large', error.message);
        return;
      }
      if (!(error instanceof DossierError)) throw error;
      answerCoreError(ctx, error, answerApiError);
    }
  };
}
