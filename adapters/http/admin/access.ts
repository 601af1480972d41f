import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AdminSessions, Clock } from '../../../lib/index.js';
import { bearerToken } from '../auth.js';
import { cookieValue } from '../cookies.js';
import type { ClientFacts, HttpRequest } from '../request.js';

/** The session cookie of the panel. */
export const SESSION_COOKIE = 'dossier_admin';

/** How long a panel session lasts: 8 hours. */
export const SESSION_SECONDS = 8 * 3600;

/** Why a request's credentials do not admit it. */
export type Refusal = 'missing' | 'wrong' | 'origin' | 'locked';

/** The outcome of checking a request's credentials. */
export type AccessCheck =
  { ok: true } | { ok: false; reason: Exclude<Refusal, 'locked'> } | { ok: false; reason: 'locked'; retryAfterSeconds: number };

/**
 * The answer to a request without working credentials, by what was wrong with them: status, code and
 * message (`panel`: where the panel is, to sign in).
 */
export function refusal(reason: Refusal, panel: string): [number, string, string] {
  switch (reason) {
    case 'origin':
      return [403, 'invalid_origin', "A change made with the panel's session cookie must come from the panel itself (Origin)."];
    case 'wrong':
      return [401, 'invalid_key', 'The admin token or session is wrong or has ended.'];
    case 'missing':
      return [
        401,
        'missing_key',
        `Send the admin token as "Authorization: Bearer <DOSSIER_ADMIN_TOKEN>", or sign in at ${panel}.`,
      ];
    case 'locked':
      return [429, 'locked_out', 'Too many wrong admin tokens came from your address: it is locked out for a minute.'];
  }
}

/** What a sign-in attempt came to. */
export type SignIn =
  | { outcome: 'signed-in'; cookie: string }
  | { outcome: 'wrong'; nowLocked: boolean }
  | { outcome: 'locked'; retryAfterSeconds: number };

/**
 * Who may use the panel and its API: the admin token, compared in constant time (digests through
 * `timingSafeEqual`, so neither its content nor its length leaks), a signed session cookie for the page,
 * the `Origin` rule for writes made with that cookie, and the lock-out of an address after five wrong
 * sign-ins a minute. Time comes from the Clock port.
 *
 * A session cookie is `<id>.<expiry ms>.<HMAC>`, keyed by the token, so every process that shares the
 * token accepts it and changing the token ends every session. Sign-outs and lock-outs are kept in the
 * store ({@link AdminSessions}), so that they hold on every process that shares it.
 */
export class AdminAccess {
  private readonly tokenDigest: Buffer;
  private readonly sessionKey: Buffer;

  constructor(
    token: string,
    private readonly sessions: AdminSessions,
    private readonly clock: Clock,
  ) {
    this.tokenDigest = digest(token);
    this.sessionKey = createHash('sha256').update('dossier admin session\0').update(token).digest();
  }

  /** Whether `candidate` is the admin token, in time that does not depend on either. */
  private isToken(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  /**
   * Checks the request's `Authorization` when it sends one ({@link checkBearer}), else, when `session`,
   * its session cookie: a locked-out address is refused either way, and a write (any method but GET and
   * HEAD) made with the cookie must also carry the request's own `Origin`.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the cookie cannot be checked against the
   *   lock-outs and sign-outs.
   */
  async check(request: HttpRequest, client: () => ClientFacts, session: boolean): Promise<AccessCheck> {
    if (request.header('authorization') || !session) return this.checkBearer(request, client);
    const cookie = sessionCookie(request);
    if (cookie === undefined) return { ok: false, reason: 'missing' };
    const lockedUntil = await this.sessions.lockedUntil(client().ip);
    if (lockedUntil !== null) return this.locked(lockedUntil);
    if (!(await this.isSession(cookie))) return { ok: false, reason: 'wrong' };
    const { method } = request;
    if (method !== 'GET' && method !== 'HEAD' && !sameOrigin(request, client())) return { ok: false, reason: 'origin' };
    return { ok: true };
  }

  /**
   * Checks the request's bearer token (the admin API, `/metrics`) as {@link AdminSessions.bearer} judges
   * it: a wrong one counts toward the lock-out of the request's address, and a locked-out address is
   * refused, whatever the token. No `Authorization`, or another scheme (Basic, …), is no bearer token
   * at all: missing, as interface A answers it.
   */
  private async checkBearer(request: HttpRequest, client: () => ClientFacts): Promise<AccessCheck> {
    const token = bearerToken(request.header('authorization'));
    if (token === null) return { ok: false, reason: 'missing' };
    const verdict = await this.sessions.bearer(client().ip, () => token !== '' && this.isToken(token));
    if (verdict.outcome === 'locked') return this.locked(verdict.lockedUntil);
    return verdict.outcome === 'right' ? { ok: true } : { ok: false, reason: 'wrong' };
  }

  /**
   * Whether the request carries a working session cookie.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async hasSession(request: HttpRequest): Promise<boolean> {
    const cookie = sessionCookie(request);
    return cookie !== undefined && (await this.isSession(cookie));
  }

  /**
   * A sign-in from `address` with `candidate`: a new session cookie value, or a refusal. The fifth wrong
   * try within a minute locks the address for a minute, during which every try is refused, the right
   * token included.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async signIn(address: string, candidate: string): Promise<SignIn> {
    const verdict = await this.sessions.attempt(address, () => this.isToken(candidate));
    if (verdict.outcome === 'locked') return { outcome: 'locked', retryAfterSeconds: this.secondsUntil(verdict.lockedUntil) };
    return verdict.outcome === 'wrong' ? verdict : { outcome: 'signed-in', cookie: this.newSession(this.clock.now()) };
  }

  /**
   * Ends the session of this cookie value, on every process that shares the store.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async signOut(cookie: string | undefined): Promise<void> {
    const parsed = cookie === undefined ? undefined : this.parse(cookie);
    if (parsed !== undefined) await this.sessions.signOut(parsed.id, parsed.expires);
  }

  private locked(lockedUntil: number): AccessCheck {
    return { ok: false, reason: 'locked', retryAfterSeconds: this.secondsUntil(lockedUntil) };
  }

  /** Whole seconds from now to `at` (ms since the epoch), at least 1: a `Retry-After`. */
  private secondsUntil(at: number): number {
    return Math.max(1, Math.ceil((at - this.clock.now()) / 1000));
  }

  private newSession(now: number): string {
    const id = randomBytes(16).toString('base64url');
    const payload = `${id}.${now + SESSION_SECONDS * 1000}`;
    return `${payload}.${this.mac(payload)}`;
  }

  private async isSession(cookie: string): Promise<boolean> {
    const parsed = this.parse(cookie);
    return parsed !== undefined && parsed.expires > this.clock.now() && !(await this.sessions.isSignedOut(parsed.id));
  }

  /** The id and expiry of a cookie whose signature holds. */
  private parse(cookie: string): { id: string; expires: number } | undefined {
    const match = /^([A-Za-z0-9_-]{22})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
    if (match === null) return undefined;
    const [, id, expires, mac] = match as unknown as [string, string, string, string];
    const expected = Buffer.from(this.mac(`${id}.${expires}`));
    if (!timingSafeEqual(Buffer.from(mac), expected)) return undefined;
    return { id, expires: Number(expires) };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.sessionKey).update(payload).digest('base64url');
  }
}

/** The panel's session cookie of the request, when it sends one. */
export function sessionCookie(request: HttpRequest): string | undefined {
  return cookieValue(request.header('cookie'), SESSION_COOKIE);
}

/**
 * Whether the request's `Origin` is its own origin (scheme, host and port as the request was made,
 * behind a trusted proxy as it says).
 */
export function sameOrigin(request: HttpRequest, { protocol, host }: ClientFacts): boolean {
  const origin = request.header('origin');
  return origin !== undefined && origin !== '' && host !== '' && origin === `${protocol}://${host}`;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
