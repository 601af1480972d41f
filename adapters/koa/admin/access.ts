import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Clock } from '../../../lib/ports/clock.js';

/** The session cookie of the panel. */
export const SESSION_COOKIE = 'dossier_admin';

/** How long a panel session lasts: 8 hours. */
export const SESSION_SECONDS = 8 * 3600;

/** Wrong sign-ins from one address, within {@link LOCKOUT_WINDOW_MS}, that lock that address. */
export const LOCKOUT_FAILURES = 5;

/** The window of {@link LOCKOUT_FAILURES}, and how long the lock lasts: one minute. */
export const LOCKOUT_WINDOW_MS = 60_000;

/** How a request proved it may use the admin API. */
export type AdminCredential = 'bearer' | 'session';

/** The outcome of checking a request's credentials. */
export type AccessCheck = { ok: true; via: AdminCredential } | { ok: false; reason: 'missing' | 'wrong' | 'origin' };

/** What a sign-in attempt came to. */
export type SignIn =
  | { outcome: 'signed-in'; cookie: string }
  | { outcome: 'wrong'; nowLocked: boolean }
  | { outcome: 'locked'; retryAfterSeconds: number };

/**
 * Who may use the panel and its API: the admin token, compared in constant time (digests through
 * `timingSafeEqual`, so neither its content nor its length leaks), a signed session cookie for the page,
 * the `Origin` rule for writes made with that cookie, and the lock-out of an address after
 * {@link LOCKOUT_FAILURES} wrong sign-ins a minute. Time comes from the Clock port.
 *
 * A session cookie is `<id>.<expiry ms>.<HMAC>`, keyed by the token, so every process that shares the
 * token accepts it and changing the token ends every session. Signing out forgets the id in this
 * process and clears the cookie in the browser. Lock-outs are kept per process.
 */
export class AdminAccess {
  private readonly tokenDigest: Buffer;
  private readonly sessionKey: Buffer;
  private readonly signedOut = new Map<string, number>();
  private readonly failures = new Map<string, { times: number[]; lockedUntil: number }>();

  constructor(
    token: string,
    private readonly clock: Clock,
  ) {
    this.tokenDigest = digest(token);
    this.sessionKey = createHash('sha256').update('dossier admin session\0').update(token).digest();
  }

  /** Whether `candidate` is the admin token, in time that does not depend on either. */
  isToken(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  /**
   * Checks the request's bearer token, else its session cookie; a write (any method but GET and HEAD)
   * made with the cookie must also carry the request's own `Origin`.
   */
  check(ctx: Context): AccessCheck {
    const authorization = ctx.get('Authorization');
    // Another scheme (Basic, Token, …) is no bearer token at all: missing, as interface A answers it.
    if (authorization !== '' && !/^Bearer(?:\s|$)/i.test(authorization)) return { ok: false, reason: 'missing' };
    if (authorization !== '') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      return match?.[1] !== undefined && this.isToken(match[1]) ? { ok: true, via: 'bearer' } : { ok: false, reason: 'wrong' };
    }
    const cookie = ctx.cookies.get(SESSION_COOKIE);
    if (cookie === undefined) return { ok: false, reason: 'missing' };
    if (!this.isSession(cookie)) return { ok: false, reason: 'wrong' };
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && !sameOrigin(ctx)) return { ok: false, reason: 'origin' };
    return { ok: true, via: 'session' };
  }

  /** Whether the request carries a working session cookie. */
  hasSession(ctx: Context): boolean {
    const cookie = ctx.cookies.get(SESSION_COOKIE);
    return cookie !== undefined && this.isSession(cookie);
  }

  /**
   * A sign-in from `address` with `candidate`: a new session cookie value, or a refusal. The
   * {@link LOCKOUT_FAILURES}th wrong try within a minute locks the address for a minute, during which
   * every try is refused, the right token included.
   */
  signIn(address: string, candidate: string): SignIn {
    const now = this.clock.now();
    const record = this.failures.get(address);
    if (record !== undefined && record.lockedUntil > now) {
      return { outcome: 'locked', retryAfterSeconds: Math.max(1, Math.ceil((record.lockedUntil - now) / 1000)) };
    }
    if (this.isToken(candidate)) {
      this.failures.delete(address);
      return { outcome: 'signed-in', cookie: this.newSession(now) };
    }
    this.forgetOld(now);
    const times = (record?.times ?? []).filter((time) => time > now - LOCKOUT_WINDOW_MS);
    times.push(now);
    const nowLocked = times.length >= LOCKOUT_FAILURES;
    this.failures.set(address, nowLocked ? { times: [], lockedUntil: now + LOCKOUT_WINDOW_MS } : { times, lockedUntil: 0 });
    return { outcome: 'wrong', nowLocked };
  }

  /** Ends the session of this cookie value in this process. */
  signOut(cookie: string | undefined): void {
    const parsed = cookie === undefined ? undefined : this.parse(cookie);
    this.forgetOld(this.clock.now());
    if (parsed !== undefined) this.signedOut.set(parsed.id, parsed.expires);
  }

  private newSession(now: number): string {
    const id = randomBytes(16).toString('base64url');
    const payload = `${id}.${now + SESSION_SECONDS * 1000}`;
    return `${payload}.${this.mac(payload)}`;
  }

  private isSession(cookie: string): boolean {
    const parsed = this.parse(cookie);
    return parsed !== undefined && parsed.expires > this.clock.now() && !this.signedOut.has(parsed.id);
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

  /** Drops sign-outs and failure records that no longer matter, so that neither map grows without end. */
  private forgetOld(now: number): void {
    if (this.failures.size > 10_000) {
      for (const [address, record] of this.failures) {
        if (record.lockedUntil <= now && record.times.every((time) => time <= now - LOCKOUT_WINDOW_MS)) {
          this.failures.delete(address);
        }
      }
    }
    for (const [id, expires] of this.signedOut) if (expires <= now) this.signedOut.delete(id);
  }
}

/**
 * Whether the request's `Origin` is its own origin (scheme, host and port as the request was made,
 * behind a proxy as Koa's `proxy` setting reads them).
 */
export function sameOrigin(ctx: Context): boolean {
  const origin = ctx.get('Origin');
  return origin !== '' && ctx.host !== '' && origin === `${ctx.protocol}://${ctx.host}`;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
