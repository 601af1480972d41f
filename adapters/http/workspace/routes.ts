import { isDossierError, type ApiKey } from '../../../lib/index.js';
import { sameOrigin } from '../admin/access.js';
import { html } from '../admin/pages.js';
import { readLimited } from '../body.js';
import { cookieValue, setCookie } from '../cookies.js';
import { DOCUMENT_ROUTES } from '../documents.js';
import { RequestError } from '../errors.js';
import { storeOutage } from '../page-frame.js';
import type { ClientFacts, HttpRequest } from '../request.js';
import type { Call, Route } from '../route.js';
import { docxModule, WORD_COUNT_JS, WORKSPACE_CSS, WORKSPACE_ICON, WORKSPACE_JS } from './assets.js';
import { signInPage, unavailablePage, viewPage, type View, type WorkspaceContext } from './page.js';

// The documents workspace (docs/contract.md §14, docs/workspace.md): pages where a key's owner writes,
// finds and exports documents. A key pasted once at `POST /workspace/sign-in` is exchanged for a session
// cookie that holds no key (the store keeps the session, pointing at the key's id). The pages' script
// then calls interface B through `/workspace/api/v1/…`: the very routes of `/api/v1/…`
// (DOCUMENT_ROUTES, the same handlers, validation, service calls and answers), served a second time
// with the session's key in place of a bearer key. The public API itself keeps taking bearer keys only,
// so that no cookie ever authorizes it.

/** The session cookie of the workspace. */
export const WORKSPACE_COOKIE = 'dossier_workspace';

/** The largest sign-in form read, in bytes. */
const MAX_SIGN_IN_BYTES = 4096;

/** Where the workspace is: `/workspace` under whatever prefix the contract is mounted. */
function contextOf(call: Call): WorkspaceContext {
  return { base: /^(.*?\/workspace)(?:\/|$)/i.exec(call.path)?.[1] ?? '/workspace', docx: docxModule() !== null };
}

/**
 * Whether a request comes from the workspace's own pages: the browser says so (`Sec-Fetch-Site:
 * same-origin`), or its `Origin` is the request's own. Another site's page can send neither.
 */
function fromOwnPage(request: HttpRequest, client: ClientFacts): boolean {
  return request.header('sec-fetch-site') === 'same-origin' || sameOrigin(request, client);
}

/** The session cookie of the request, when it sends one. */
function sessionOf(call: Call): string | undefined {
  return cookieValue(call.request.header('cookie'), WORKSPACE_COOKIE);
}

/** Sets the session cookie (`null`: clears it), for the workspace's paths only. */
function setSession(call: Call, base: string, session: { value: string; expiresAt: number } | null): void {
  const secure = call.client().protocol === 'https';
  call.reply.header(
    'Set-Cookie',
    session === null
      ? setCookie(WORKSPACE_COOKIE, '', { path: base, expires: 0, secure })
      : setCookie(WORKSPACE_COOKIE, session.value, { path: base, expires: session.expiresAt, secure }),
  );
}

/** A page handler whose store outage is answered with the workspace's page that says so (503). */
const whileStoreAnswers = storeOutage((call) => html(call.reply, 503, unavailablePage(contextOf(call))));

/** A route of the workspace, which the OpenAPI document leaves out (its pages are no calls of the API). */
function workspaceRoute(method: Route['method'], path: string, summary: string, handle: Route['handle']): Route {
  return {
    method,
    path: `/workspace${path}`,
    operationId: `workspace ${method} ${path || '/'}`,
    summary,
    tag: 'Documents',
    auth: 'none',
    hidden: true,
    responses: {},
    handle,
  };
}

/**
 * The page of a view, once the session is checked: without a working session, the sign-in form, which
 * says why when a session was sent (ended, or its key lost the `documents` scope) and leads back here.
 */
function viewRoute(path: string, view: (call: Call) => View): Route {
  return workspaceRoute(
    'get',
    path,
    `The workspace: ${path || 'documents'}`,
    whileStoreAnswers(async (call) => {
      const context = contextOf(call);
      const session = sessionOf(call);
      try {
        await call.dossier.workspaceSessions.keyOf(session);
      } catch (error) {
        if (!isDossierError(error, 'ERR_AUTH_MISSING_KEY', 'ERR_AUTH_INVALID_KEY', 'ERR_AUTH_INSUFFICIENT_SCOPE')) throw error;
        if (session !== undefined) setSession(call, context.base, null);
        const next = call.path + (call.query === '' ? '' : `?${call.query}`);
        if (isDossierError(error, 'ERR_AUTH_INSUFFICIENT_SCOPE'))
          return html(call.reply, 200, signInPage(context, next, NO_SCOPE));
        const notice = session === undefined ? undefined : 'Your session has ended. Sign in again to go on.';
        return html(call.reply, 200, signInPage(context, next, undefined, notice));
      }
      html(call.reply, 200, viewPage(context, view(call)));
    }),
  );
}

const NO_SCOPE =
  'That key works, but it does not have the documents scope. Ask your administrator for a key with the documents scope.';

/** The `key` and `next` of a form-encoded sign-in; empty when there are none or the body is too large. */
async function readSignIn(call: Call): Promise<{ key: string; next: string }> {
  const text = await readLimited(call.request, MAX_SIGN_IN_BYTES);
  const form = new URLSearchParams(text ?? '');
  return { key: (form.get('key') ?? '').trim(), next: form.get('next') ?? '' };
}

/** Where to go once signed in: `next` when it is a page of the workspace, else the documents. */
function landing(base: string, next: string): string {
  const rest = next.startsWith(base) ? next.slice(base.length) : undefined;
  return rest !== undefined && /^(?:\/new|\/documents\/\d{1,16})?\/?(?:\?[^#\s\\]*)?$/.test(rest) ? next : base;
}

/**
 * A route of interface B served again under `/workspace`, for the workspace's script: the same
 * declaration and handler, given the key of the session instead of a bearer key. Its requests must come
 * from the workspace's own pages (`Sec-Fetch-Site`, or `Origin` for writes), besides the cookie being
 * `SameSite=Strict`. The answers (errors included, in interface B's shape) are those of `/api/v1/…`.
 */
function sessionRoute(route: Route): Route {
  const { method, path, operationId, summary, tag, params, query, body, responses, handle } = route;
  return {
    method,
    path: `/workspace${path}`,
    operationId: `workspace ${operationId}`,
    summary,
    tag,
    auth: 'none',
    hidden: true,
    params,
    query,
    body,
    responses,
    async handle(call) {
      const site = call.request.header('sec-fetch-site');
      const write = method !== 'get';
      if ((site !== undefined && site !== 'same-origin') || (write && !fromOwnPage(call.request, call.client())))
        throw new RequestError(403, 'invalid_origin', "The workspace's session works only from the workspace's own pages.");
      const key: ApiKey = await call.dossier.workspaceSessions.keyOf(sessionOf(call));
      call.context.key_id = key.id;
      // The call as the mount would have made it for a bearer key: everything inherited, the key set.
      await handle(Object.create(call, { key: { value: key } }) as Call);
    },
  };
}

/**
 * A form that the workspace's own pages post (sign-in, sign-out): from anywhere else (neither
 * `Sec-Fetch-Site: same-origin` nor the request's own `Origin`), refused with the sign-in page saying
 * to `action` from it.
 */
function ownPagePost(
  path: string,
  summary: string,
  action: string,
  handle: (call: Call, context: WorkspaceContext) => Promise<void>,
): Route {
  return workspaceRoute(
    'post',
    path,
    summary,
    whileStoreAnswers(async (call) => {
      const context = contextOf(call);
      if (!fromOwnPage(call.request, call.client()))
        return html(call.reply, 403, signInPage(context, context.base, `${action} from this page itself.`));
      await handle(call, context);
    }),
  );
}

/** One of the page's own files. */
function asset(name: string, type: string, body: () => string | null): Route {
  return workspaceRoute('get', `/assets/${name}`, `The workspace's ${name}`, (call) => {
    const content = body();
    if (content === null) return; // an optional asset whose package is not installed: a 404
    call.reply.send(200, type, content);
    call.reply.header('Cache-Control', 'no-cache');
    call.reply.header('X-Content-Type-Options', 'nosniff');
  });
}

const JS = 'text/javascript; charset=utf-8';

/** The workspace's pages, sign-in and sign-out, interface B under its session, and its assets. */
export const WORKSPACE_ROUTES: readonly Route[] = [
  viewRoute('', () => ({ name: 'list' })),
  viewRoute('/new', () => ({ name: 'new' })),
  viewRoute('/documents/:id', (call) => ({ name: 'document', id: call.params.id ?? '' })),
  // A sign-in from another site's form is refused (login CSRF): a browser always sends Origin with a POST.
  ownPagePost('/sign-in', 'Sign in with a key that has the documents scope', 'Sign in', async (call, context) => {
    const { key, next } = await readSignIn(call);
    const result = await call.dossier.workspaceSessions.signIn(call.client().ip, key);
    switch (result.outcome) {
      case 'locked': {
        const seconds = Math.max(1, Math.ceil((result.lockedUntil - call.dossier.options.clock.now()) / 1000));
        call.reply.header('Retry-After', String(seconds));
        const wait = `${seconds} second${seconds === 1 ? '' : 's'}`;
        return html(
          call.reply,
          429,
          signInPage(context, next, `Too many wrong keys from your address: sign-in is locked. Try again in ${wait}.`),
        );
      }
      case 'unknown': {
        const locked = result.nowLocked ? ' That was the fifth wrong try in a minute: sign-in is locked for a minute.' : '';
        return html(call.reply, 401, signInPage(context, next, `That key is unknown, expired or has been revoked.${locked}`));
      }
      case 'no-scope':
        return html(call.reply, 403, signInPage(context, next, NO_SCOPE));
      case 'signed-in':
        setSession(call, context.base, { value: result.session, expiresAt: result.expiresAt });
        call.reply.redirect(landing(context.base, next), 303, true);
    }
  }),
  // Signing out with a cookie is a write: another site may not do it for the user.
  ownPagePost('/sign-out', 'Sign out', 'Sign out', async (call, context) => {
    await call.dossier.workspaceSessions.signOut(sessionOf(call));
    setSession(call, context.base, null);
    call.reply.redirect(context.base, 303, true);
  }),
  ...DOCUMENT_ROUTES.map(sessionRoute),
  asset('workspace.js', JS, () => WORKSPACE_JS),
  asset('word-count.js', JS, () => WORD_COUNT_JS),
  asset('docx.js', JS, docxModule),
  asset('workspace.css', 'text/css; charset=utf-8', () => WORKSPACE_CSS),
  asset('icon.svg', 'image/svg+xml', () => WORKSPACE_ICON),
];
