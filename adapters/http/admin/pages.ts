import { Type } from '@sinclair/typebox';
import { DossierValidationError, isDossierError } from '../../../lib/index.js';
import { isJsonBody, readLimited } from '../body.js';
import { setCookie } from '../cookies.js';
import { storeOutage } from '../page-frame.js';
import type { Reply } from '../reply.js';
import { panelOf, type Call, type Route } from '../route.js';
import { SESSION_COOKIE, SESSION_SECONDS, sameOrigin, sessionCookie } from './access.js';
import { ADMIN_CSS, ADMIN_ICON, ADMIN_JS } from './assets.js';
import { keyJson, keyListQuery, pageJson } from './keys.js';
import {
  keyPage,
  keysPage,
  missingKeyPage,
  offPage,
  signInPage,
  unavailablePage,
  type KeysListing,
  type PageContext,
} from './page.js';
import { keyWatches, watchesSection } from './watches-section.js';

// The panel (docs/contract.md §5): `GET /admin` (sign-in or the keys; without an admin token, a page that
// says how to turn the panel on), `POST /admin/sign-in` and `/admin/sign-out`, `GET /admin/keys/{id}`
// (a key and its usage), and the page's one stylesheet, one script and icon. Changes are made by the
// script through the admin API.

/**
 * The page's Content-Security-Policy: its own script and stylesheet only, no inline code or style, no
 * frame, forms posting only to itself.
 */
export const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Days of usage a key's page shows (docs/contract.md §5: the last 30 days). */
const DETAIL_DAYS = 30;

/** The largest sign-in form read, in bytes. */
const MAX_SIGN_IN_BYTES = 4096;

/** Where the panel is: `/admin` under whatever prefix the contract is mounted. */
function pageContext(call: Call): PageContext {
  return { base: /^(.*?\/admin)(?:\/|$)/i.exec(call.path)?.[1] ?? '/admin' };
}

/** Answers a page under {@link ADMIN_CSP}, framed by no one, never cached (the workspace's pages too). */
export function html(reply: Reply, status: number, body: string): void {
  reply.send(status, 'text/html; charset=utf-8', body);
  reply.header('Content-Security-Policy', ADMIN_CSP);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  // Not no-referrer: with it, Chromium sends `Origin: null` on the page's own POSTs, which the API refuses.
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('Cache-Control', 'no-store');
}

/** Sends the client to `url` (303), in HTML when it takes HTML. */
function seeOther(call: Call, url: string): void {
  call.reply.redirect(url, 303, call.accepts('text/html') !== undefined);
}

/** Sets the session cookie (`null`: clears it) and sends the browser back to the panel. */
function backToPanel(call: Call, page: PageContext, cookie: string | null): void {
  const secure = call.client().protocol === 'https';
  const now = call.dossier.options.clock.now();
  call.reply.header(
    'Set-Cookie',
    cookie === null
      ? setCookie(SESSION_COOKIE, '', { path: page.base, expires: 0, secure })
      : setCookie(SESSION_COOKIE, cookie, { path: page.base, expires: now + SESSION_SECONDS * 1000, secure }),
  );
  seeOther(call, page.base);
}

/** A page handler whose store outage is answered with an HTML page (503), not the API's JSON. */
const whileStoreAnswers = storeOutage((call) => html(call.reply, 503, unavailablePage(pageContext(call))));

/** The `token` of a form-encoded (or JSON) sign-in; `''` when there is none or the body is too large. */
async function readToken(call: Call): Promise<string> {
  const text = await readLimited(call.request, MAX_SIGN_IN_BYTES);
  if (text === null) return '';
  if (isJsonBody(call.request)) {
    try {
      const token = (JSON.parse(text) as { token?: unknown }).token;
      return typeof token === 'string' ? token : '';
    } catch {
      return '';
    }
  }
  return new URLSearchParams(text).get('token') ?? '';
}

/** A page of the panel that the OpenAPI document leaves out (it is no call of the API). */
function panelPage(method: Route['method'], path: string, summary: string, handle: Route['handle']): Route {
  return {
    method,
    path,
    operationId: `panel ${method} ${path}`,
    summary,
    tag: 'Administration',
    auth: 'none',
    hidden: true,
    responses: {},
    handle,
  };
}

/** One of the page's own files. */
function asset(name: string, type: string, body: string): Route {
  return panelPage('get', `/admin/assets/${name}`, `The panel's ${name}`, (call) => {
    call.reply.send(200, type, body);
    call.reply.header('Cache-Control', 'no-cache');
    call.reply.header('X-Content-Type-Options', 'nosniff');
  });
}

/** A page that needs an admin token: without one, the panel's paths are unknown but for its off page. */
function signedPage(method: Route['method'], path: string, summary: string, handle: (call: Call) => Promise<void>): Route {
  return { ...panelPage(method, path, summary, whileStoreAnswers(handle)), needsAdminToken: true };
}

/** The panel's page itself: the one route of the panel the OpenAPI document shows (anyone may load it). */
export const PANEL_ROUTE: Route = {
  method: 'get',
  path: '/admin',
  operationId: 'adminPanel',
  summary: 'The administration panel (HTML)',
  tag: 'Administration',
  auth: 'none',
  responses: {
    200: { description: 'The panel, or a page that says it is off.', contentType: 'text/html', body: Type.String() },
  },
  handle: whileStoreAnswers(async (call) => {
    const page = pageContext(call);
    const { access } = call.mount;
    if (access === undefined) return html(call.reply, 200, offPage(page));
    if (!(await access.hasSession(call.request))) return html(call.reply, 200, signInPage(page));
    html(call.reply, 200, keysPage(page, await keysListing(call), call.dossier.options.clock.now()));
  }),
};

/** Keys in the panel's table at once. */
const PANEL_PAGE_SIZE = 50;

/**
 * The page of keys the panel's URL asks for (`search`, `status`, `cursor` or `before`); a URL with a bad
 * parameter (edited by hand, or a cursor of a key since gone) shows the first page of every key.
 */
async function keysListing(call: Call): Promise<KeysListing> {
  const { search, status, cursor, before } = keyListQuery(call.query);
  const filters = {
    ...(search !== undefined && search !== '' && { search }),
    ...(status !== undefined && status !== '' && { status }),
  };
  const asked = {
    ...filters,
    limit: String(PANEL_PAGE_SIZE),
    ...(cursor !== undefined && { cursor }),
    ...(before !== undefined && { before }),
  };
  const shown = await pageJson(call.dossier, asked).then(
    (listed) => ({ listed, filters }),
    async (error: unknown) => {
      if (!(error instanceof DossierValidationError)) throw error;
      return { listed: await pageJson(call.dossier, { limit: String(PANEL_PAGE_SIZE) }), filters: {} };
    },
  );
  return {
    keys: shown.listed.data,
    total: shown.listed.meta.total,
    filters: shown.filters,
    nextCursor: shown.listed.meta.next_cursor,
    previousCursor: shown.listed.previous_cursor,
  };
}

/** The panel's other pages and its assets, which the OpenAPI document leaves out. */
export const PANEL_PAGES: readonly Route[] = [
  signedPage('post', '/admin/sign-in', 'Sign in with the admin token', async (call) => {
    const page = pageContext(call);
    // Only from the panel itself (login CSRF): its own Origin, or without one a browser's
    // `Sec-Fetch-Site: same-origin`; as the admin API's cookie writes are.
    const origin = call.request.header('origin');
    const ownPage = origin ? sameOrigin(call.request, call.client()) : call.request.header('sec-fetch-site') === 'same-origin';
    if (!ownPage) return html(call.reply, 403, signInPage(page, 'Sign in from this page itself.'));
    const result = await panelOf(call.mount).access.signIn(call.client().ip, await readToken(call));
    if (result.outcome === 'locked') {
      call.reply.header('Retry-After', String(result.retryAfterSeconds));
      const wait = `${result.retryAfterSeconds} second${result.retryAfterSeconds === 1 ? '' : 's'}`;
      return html(
        call.reply,
        429,
        signInPage(page, `Too many wrong tokens from your address: sign-in is locked. Try again in ${wait}.`),
      );
    }
    if (result.outcome === 'wrong') {
      const locked = result.nowLocked ? ' That was the fifth wrong try in a minute: sign-in is locked for a minute.' : '';
      return html(call.reply, 401, signInPage(page, `That admin token is wrong.${locked}`));
    }
    backToPanel(call, page, result.cookie);
  }),
  signedPage('post', '/admin/sign-out', 'Sign out', async (call) => {
    const page = pageContext(call);
    // Signing out with a cookie is a write: another site may not do it for the user.
    if (!sameOrigin(call.request, call.client()))
      return html(call.reply, 403, signInPage(page, 'Sign out from this page itself.'));
    await panelOf(call.mount).access.signOut(sessionCookie(call.request));
    backToPanel(call, page, null);
  }),
  signedPage('get', '/admin/keys/:id', 'A key, its usage and its watches', async (call) => {
    const page = pageContext(call);
    if (!(await panelOf(call.mount).access.hasSession(call.request))) return seeOther(call, page.base);
    try {
      const key = await call.dossier.keys.get(call.params.id ?? '');
      const [json, history, watches] = await Promise.all([
        keyJson(call.dossier, key),
        call.dossier.quotas.history(key.id, DETAIL_DAYS),
        keyWatches(call.dossier, key),
      ]);
      html(call.reply, 200, keyPage(page, json, history, watchesSection(watches)));
    } catch (error) {
      if (!isDossierError(error, 'ERR_KEY_NOT_FOUND')) throw error;
      html(call.reply, 404, missingKeyPage(page));
    }
  }),
  asset('admin.css', 'text/css; charset=utf-8', ADMIN_CSS),
  asset('admin.js', 'text/javascript; charset=utf-8', ADMIN_JS),
  asset('icon.svg', 'image/svg+xml', ADMIN_ICON),
];
