import { createHash, randomBytes } from 'node:crypto';
import { DossierError, isDossierError } from '../errors.js';
import { AdminSessions } from './admin-sessions.js';
import { requireScope } from './key-rules.js';
import type { Clock } from '../ports/clock.js';
import type { ApiKey, KeyStore } from '../ports/key-store.js';
import type { SessionStore } from '../ports/session-store.js';
import { keyStatusAt } from '../records/stored-key.js';

/** How long a workspace session lasts: 8 hours, as the panel's. */
export const WORKSPACE_SESSION_SECONDS = 8 * 3600;

/** What a sign-in to the workspace came to ({@link WorkspaceSessions.signIn}). */
export type WorkspaceSignIn =
  /** `session` is the cookie's value; `expiresAt` in ms since the epoch. */
  | { outcome: 'signed-in'; session: string; expiresAt: number }
  /** No working key has this secret (unknown, revoked or expired); `nowLocked` when that try locked the address. */
  | { outcome: 'unknown'; nowLocked: boolean }
  /** The key works, but has no `documents` scope. */
  | { outcome: 'no-scope' }
  /** Too many wrong tries from the address; `lockedUntil` in ms since the epoch. */
  | { outcome: 'locked'; lockedUntil: number };

/** A session id as {@link WorkspaceSessions.signIn} makes them: 32 random bytes, base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The sessions of the documents workspace (docs/contract.md §14): a key's secret, pasted once, is
 * exchanged for a random session id, and the store keeps a record of that session pointing at the
 * key's id, so that the browser never holds the key. Every use of a session reads the key again, so that
 * a key revoked, expired or stripped of its `documents` scope ends its sessions at their next request,
 * on every process that shares the store. Wrong secrets are limited per address as the panel's sign-in
 * is ({@link AdminSessions.attempt}, in a namespace of their own). Time comes from the Clock port.
 */
export class WorkspaceSessions {
  private readonly limiter: AdminSessions;

  constructor(
    private readonly sessions: SessionStore,
    private readonly keys: KeyStore,
    private readonly clock: Clock,
  ) {
    this.limiter = new AdminSessions(sessions, clock, 'workspace');
  }

  /**
   * A sign-in from `address` with a key's `secret`. A secret no working key has counts as a wrong try
   * (the fifth in a minute locks the address for a minute, during which every try is refused); a
   * working key without the `documents` scope is told apart, and opens no session.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async signIn(address: string, secret: string): Promise<WorkspaceSignIn> {
    const key = secret === '' ? null : await this.keys.verify(secret);
    const verdict = await this.limiter.attempt(address, () => key !== null);
    if (verdict.outcome === 'locked') return verdict;
    if (verdict.outcome === 'wrong' || key === null)
      return { outcome: 'unknown', nowLocked: verdict.outcome === 'wrong' && verdict.nowLocked };
    if (!key.scopes.includes('documents')) return { outcome: 'no-scope' };
    const session = randomBytes(32).toString('base64url');
    const expiresAt = this.clock.now() + WORKSPACE_SESSION_SECONDS * 1000;
    await this.sessions.put(sessionRecord(session), { keyId: key.id, expiresAt });
    return { outcome: 'signed-in', session, expiresAt };
  }

  /**
   * The key behind a session, refused as a bearer key would be: the session is ended when its key is
   * no longer active.
   * @throws DossierError `ERR_AUTH_MISSING_KEY` without a session, `ERR_AUTH_INVALID_KEY` for an
   *   unknown or ended one (or one whose key was revoked, expired or removed),
   *   `ERR_AUTH_INSUFFICIENT_SCOPE` when the key lost its `documents` scope, `ERR_STORE_UNAVAILABLE`.
   */
  async keyOf(session: string | undefined): Promise<ApiKey> {
    if (session === undefined || session === '')
      throw new DossierError('ERR_AUTH_MISSING_KEY', 'Sign in to the workspace with your key.');
    const ended = (): DossierError => new DossierError('ERR_AUTH_INVALID_KEY', 'The workspace session has ended: sign in again.');
    if (!SESSION_ID.test(session)) throw ended();
    const name = sessionRecord(session);
    const now = this.clock.now();
    const record = await this.sessions.get(name, now);
    if (record === undefined || record.keyId === null) throw ended();
    let key: ApiKey;
    try {
      key = await this.keys.get(record.keyId);
    } catch (error) {
      if (!isDossierError(error, 'ERR_KEY_NOT_FOUND')) throw error;
      await this.sessions.remove(name);
      throw ended();
    }
    if (keyStatusAt(key, now) !== 'active') {
      await this.sessions.remove(name);
      throw ended();
    }
    requireScope(key, 'documents');
    return key;
  }

  /**
   * Ends a session, on every process that shares the store; an unknown one is no error.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async signOut(session: string | undefined): Promise<void> {
    if (session !== undefined && SESSION_ID.test(session)) await this.sessions.remove(sessionRecord(session));
  }
}

/**
 * Where a session is kept: under the SHA-256 of its id, so that what the store holds opens no
 * session for whoever reads it.
 */
function sessionRecord(session: string): string {
  return `workspace:session:${createHash('sha256').update(session).digest('base64url')}`;
}
