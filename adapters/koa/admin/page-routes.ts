import type Router from '@koa/router';
import type { Context } from 'koa';
import { type Dossier, isDossierError } from '../../../lib/index.js';
import { SESSION_COOKIE, SESSION_SECONDS, sameOrigin, type AdminAccess } from './access.js';
import { ADMIN_CSS, ADMIN_ICON, ADMIN_JS } from './assets.js';
import { keyPage, keysPage, missingKeyPage, offPage, signInPage, unavailablePage, type PageContext } from './page.js';
import { STORE_RETRY_AFTER_SECONDS } from '../error-map.js';
import { readLimited } from '../request-body.js';
import { keyJson } from '../../keys/key-json.js';
import { listJson } from './wire.js';
import { keyWatches, watchesSection } from './watches-section.js';

/**
 * The page's Content-Security-Policy: its own script and stylesheet only, no inline code or style, no
 * frame, forms posting only to itself.
 */
export const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Days of usage a key's page shows (CONTRACT.md §5: the last 30 days). */
const DETAIL_DAYS = 30;

/** The largest sign-in form read, in bytes. */
const MAX_SIGN_IN_BYTES = 4096;

/** `GET /admin` when the panel is off: a page that says how to turn it on. */
export function addAdminOffPage(router: Router): void {
  router.get('/admin', (ctx) => html(ctx, 200, offPage(pageContext(ctx))));
  addAssets(router);
}

/**
 * The panel (CONTRACT.md §5): `GET /admin` (sign-in or the keys), `POST /admin/sign-in` and
 * `/admin/sign-out`, `GET /admin/keys/{id}` (a key and its usage), and the page's one stylesheet and
 * one script. Changes are made by the script through the admin API.
 */
export function addAdminPages(router: Router, dossier: Dossier, access: AdminAccess): void {
  addAssets(router);

  router.get(
    '/admin',
    whileStoreAnswers(async (ctx) => {
      const page = pageContext(ctx);
      if (!(await access.hasSession(ctx))) return html(ctx, 200, signInPage(page));
      html(ctx, 200, keysPage(page, await listJson(dossier), dossier.options.clock.now()));
    }),
  );

  router.post(
    '/admin/sign-in',
    whileStoreAnswers(async (ctx) => {
      const page = pageContext(ctx);
      // A sign-in from another site's form is refused; a browser always sends Origin with a POST.
      if (ctx.get('Origin') !== '' && !sameOrigin(ctx)) return html(ctx, 403, signInPage(page, 'Sign in from this page itself.'));
      const result = await access.signIn(ctx.ip, await readToken(ctx));
      if (result.outcome === 'locked') {
        ctx.set('Retry-After', String(result.retryAfterSeconds));
        const wait = `${result.retryAfterSeconds} second${result.retryAfterSeconds === 1 ? '' : 's'}`;
        return html(
          ctx,
          429,
          signInPage(page, `Too many wrong tokens from your address: sign-in is locked. Try again in ${wait}.`),
        );
      }
      if (result.outcome === 'wrong') {
        const locked = result.nowLocked ? ' That was the fifth wrong try in a minute: sign-in is locked for a minute.' : '';
        return html(ctx, 401, signInPage(page, `That admin token is wrong.${locked}`));
      }
      backToPanel(ctx, page, result.cookie);
    }),
  );

  router.post(
    '/admin/sign-out',
    whileStoreAnswers(async (ctx) => {
      const page = pageContext(ctx);
      // Signing out with a cookie is a write: another site may not do it for the user.
      if (!sameOrigin(ctx)) return html(ctx, 403, signInPage(page, 'Sign out from this page itself.'));
      await access.signOut(ctx.cookies.get(SESSION_COOKIE));
      backToPanel(ctx, page, null);
    }),
  );

  router.get(
    '/admin/keys/:id',
    whileStoreAnswers(async (ctx) => {
      const page = pageContext(ctx);
      if (!(await access.hasSession(ctx))) {
        ctx.status = 303;
        return ctx.redirect(page.base);
      }
      try {
        const key = await dossier.keys.get(ctx.params.id ?? '');
        const [json, history, watches] = await Promise.all([
          keyJson(dossier, key),
          dossier.quotas.history(key.id, DETAIL_DAYS),
          keyWatches(dossier, key),
        ]);
        html(ctx, 200, keyPage(page, json, history, watchesSection(watches)));
      } catch (error) {
        if (!isDossierError(error, 'ERR_KEY_NOT_FOUND')) throw error;
        html(ctx, 404, missingKeyPage(page));
      }
    }),
  );
}

/** Sets the session cookie (`null`: clears it) and sends the browser back to the panel. */
function backToPanel(ctx: Context, page: PageContext, cookie: string | null): void {
  const options = { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: page.base, overwrite: true } as const;
  if (cookie === null) ctx.cookies.set(SESSION_COOKIE, '', { ...options, maxAge: 0, expires: new Date(0) });
  else ctx.cookies.set(SESSION_COOKIE, cookie, { ...options, maxAge: SESSION_SECONDS * 1000 });
  ctx.status = 303;
  ctx.redirect(page.base);
}

/** A page handler whose store outage is answered with an HTML page (503), not the API's JSON. */
function whileStoreAnswers(handler: (ctx: Context) => Promise<void>): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (error) {
      if (!isDossierError(error, 'ERR_STORE_UNAVAILABLE')) throw error;
      ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      html(ctx, 503, unavailablePage(pageContext(ctx)));
    }
  };
}

function addAssets(router: Router): void {
  router.get('/admin/assets/admin.css', (ctx) => asset(ctx, 'text/css; charset=utf-8', ADMIN_CSS));
  router.get('/admin/assets/admin.js', (ctx) => asset(ctx, 'text/javascript; charset=utf-8', ADMIN_JS));
  router.get('/admin/assets/icon.svg', (ctx) => asset(ctx, 'image/svg+xml', ADMIN_ICON));
}

function asset(ctx: Context, type: string, body: string): void {
  ctx.type = type;
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = body;
}

/** Where the panel is: `/admin` under whatever prefix the router is mounted. */
function pageContext(ctx: Context): PageContext {
  return { base: /^(.*?\/admin)(?:\/|$)/i.exec(ctx.path)?.[1] ?? '/admin' };
}

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', ADMIN_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  // Not no-referrer: with it, Chromium sends `Origin: null` on the page's own POSTs, which the API refuses.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** The `token` of a form-encoded (or JSON) sign-in; `''` when there is none or the body is too large. */
async function readToken(ctx: Context): Promise<string> {
  const text = await readLimited(ctx, MAX_SIGN_IN_BYTES);
  if (text === null) return '';
  if (ctx.is('application/json')) {
    try {
      const token = (JSON.parse(text) as { token?: unknown }).token;
      return typeof token === 'string' ? token : '';
    } catch {
      return '';
    }
  }
  return new URLSearchParams(text).get('token') ?? '';
}
