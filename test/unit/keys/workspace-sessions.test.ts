import { expect } from 'chai';
import { createDossier, type Dossier } from '../../../lib/dossier.js';
import { isDossierError } from '../../../lib/errors.js';
import type { KeyStore } from '../../../lib/ports/key-store.js';
import type { WorkspaceSessions } from '../../../lib/keys/workspace-sessions.js';

describe('WorkspaceSessions', () => {
  let now: number;
  const clock = { now: () => now };
  let dossier: Dossier;
  let keys: KeyStore;
  let sessions: WorkspaceSessions;

  beforeEach(() => {
    now = Date.UTC(2026, 10, 25, 12);
    dossier = createDossier({ store: 'memory://', cache: 'memory://', clock });
    keys = dossier.keys;
    sessions = dossier.workspaceSessions;
  });
  afterEach(() => dossier.close());

  const code = async (promise: Promise<unknown>): Promise<string | undefined> =>
    promise.then(
      () => undefined,
      (error: unknown) => (isDossierError(error) ? error.code : String(error)),
    );

  it('opens a session for a documents key, which ends at its time', async () => {
    const { key, secret } = await keys.create({ name: 'writer', scopes: ['documents'] });
    const signedIn = await sessions.signIn('192.0.2.1', secret);
    if (signedIn.outcome !== 'signed-in') throw new Error(signedIn.outcome);
    expect(signedIn.session).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(signedIn.expiresAt).to.equal(now + 8 * 3600 * 1000);
    expect((await sessions.keyOf(signedIn.session)).id).to.equal(key.id);
    now = signedIn.expiresAt;
    expect(await code(sessions.keyOf(signedIn.session))).to.equal('ERR_AUTH_INVALID_KEY');
  });

  it('tells an unknown key from one without the documents scope, and refuses a missing or forged session', async () => {
    const { secret } = await keys.create({ name: 'lookups', scopes: ['lookup'] });
    expect(await sessions.signIn('192.0.2.1', 'dsr_unknown')).to.deep.equal({ outcome: 'unknown', nowLocked: false });
    expect(await sessions.signIn('192.0.2.1', '')).to.deep.equal({ outcome: 'unknown', nowLocked: false });
    expect(await sessions.signIn('192.0.2.1', secret)).to.deep.equal({ outcome: 'no-scope' });
    expect(await code(sessions.keyOf(undefined))).to.equal('ERR_AUTH_MISSING_KEY');
    expect(await code(sessions.keyOf('x'.repeat(43)))).to.equal('ERR_AUTH_INVALID_KEY');
    expect(await code(sessions.keyOf('../../etc'))).to.equal('ERR_AUTH_INVALID_KEY');
  });

  it('ends a session at its next use once its key is revoked, expired or loses the scope, and at sign-out', async () => {
    const open = async (scopes: ('lookup' | 'documents')[] = ['documents'], expiresAt?: string) => {
      const { key, secret } = await keys.create({ name: 'writer', scopes, expiresAt });
      const signedIn = await sessions.signIn('192.0.2.1', secret);
      if (signedIn.outcome !== 'signed-in') throw new Error(signedIn.outcome);
      return { key, session: signedIn.session };
    };
    const revoked = await open();
    await keys.revoke(revoked.key.id);
    expect(await code(sessions.keyOf(revoked.session))).to.equal('ERR_AUTH_INVALID_KEY');

    const narrowed = await open(['documents', 'lookup']);
    await keys.update(narrowed.key.id, { scopes: ['lookup'] });
    expect(await code(sessions.keyOf(narrowed.session))).to.equal('ERR_AUTH_INSUFFICIENT_SCOPE');

    const expiring = await open(['documents'], '2026-11-26');
    expect((await sessions.keyOf(expiring.session)).id).to.equal(expiring.key.id);
    now = Date.UTC(2026, 10, 26);
    expect(await code(sessions.keyOf(expiring.session))).to.equal('ERR_AUTH_INVALID_KEY');

    now = Date.UTC(2026, 10, 25, 12);
    const leaving = await open();
    await sessions.signOut(leaving.session);
    expect(await code(sessions.keyOf(leaving.session))).to.equal('ERR_AUTH_INVALID_KEY');
    await sessions.signOut(undefined);
  });

  it("locks an address after five wrong keys in a minute, apart from the panel's sign-in", async () => {
    const { secret } = await keys.create({ name: 'writer', scopes: ['documents'] });
    for (let i = 0; i < 4; i++)
      expect(await sessions.signIn('192.0.2.1', 'dsr_wrong')).to.deep.equal({ outcome: 'unknown', nowLocked: false });
    expect(await sessions.signIn('192.0.2.1', 'dsr_wrong')).to.deep.equal({ outcome: 'unknown', nowLocked: true });
    expect(await sessions.signIn('192.0.2.1', secret)).to.deep.equal({ outcome: 'locked', lockedUntil: now + 60_000 });
    expect((await sessions.signIn('192.0.2.2', secret)).outcome).to.equal('signed-in');
    // The panel's sign-in of the same address is not locked by the workspace's wrong keys.
    expect(await dossier.adminSessions.lockedUntil('192.0.2.1')).to.equal(null);
    now += 60_000;
    expect((await sessions.signIn('192.0.2.1', secret)).outcome).to.equal('signed-in');
  });
});
