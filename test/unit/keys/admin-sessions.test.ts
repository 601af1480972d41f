import { expect } from 'chai';
import { DossierError, isDossierError } from '../../../lib/errors.js';
import { AdminSessions } from '../../../lib/keys/admin-sessions.js';
import { KvSessionStore } from '../../../lib/keys/kv-session-store.js';
import type { Backend } from '../../../lib/ports/backend.js';
import { openBackend } from '../../../lib/stores/open-backend.js';
import type { KvStore } from '../../../lib/ports/kv-store.js';

describe('AdminSessions', () => {
  let now: number;
  const clock = { now: () => now };
  let backend: Backend;

  beforeEach(() => {
    now = Date.UTC(2026, 10, 25, 12);
    backend = openBackend('memory://', { namespace: 'admin', clock });
  });
  afterEach(() => backend.close());

  it('counts a try before it asks whether the token is right: a store that cannot count it learns nothing of the token', async () => {
    const unwritable = Object.create(backend.kv, {
      set: { value: () => Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The store is unavailable.')) },
    }) as KvStore;
    const sessions = new AdminSessions(new KvSessionStore(unwritable, backend.counters, clock), clock);
    let asked = 0;
    const failure = await sessions.attempt('192.0.2.1', () => ++asked > 0).catch((error: unknown) => error);
    expect(isDossierError(failure, 'ERR_STORE_UNAVAILABLE')).to.equal(true);
    expect(asked).to.equal(0);
  });

  it('takes a right try back and forgets the wrong ones before it; the fifth wrong try in a minute locks for a minute', async () => {
    const sessions = new AdminSessions(new KvSessionStore(backend.kv, backend.counters, clock), clock);
    const wrong = () => sessions.attempt('192.0.2.1', () => false);
    for (let i = 0; i < 4; i++) expect(await wrong()).to.deep.equal({ outcome: 'wrong', nowLocked: false });
    expect(await sessions.attempt('192.0.2.1', () => true)).to.deep.equal({ outcome: 'right' });
    for (let i = 0; i < 4; i++) expect(await wrong()).to.deep.equal({ outcome: 'wrong', nowLocked: false });
    expect(await wrong()).to.deep.equal({ outcome: 'wrong', nowLocked: true });
    expect(await sessions.attempt('192.0.2.1', () => true)).to.deep.equal({ outcome: 'locked', lockedUntil: now + 60_000 });
    expect(await sessions.attempt('192.0.2.2', () => true)).to.deep.equal({ outcome: 'right' });
    now += 60_000;
    expect(await sessions.attempt('192.0.2.1', () => true)).to.deep.equal({ outcome: 'right' });
  });

  it('judges a bearer token alone while the store is down, and counts it as a sign-in otherwise', async () => {
    const down = Object.create(backend.kv, {
      get: { value: () => Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The store is unavailable.')) },
    }) as KvStore;
    const outage = new AdminSessions(new KvSessionStore(down, backend.counters, clock), clock);
    expect(await outage.bearer('192.0.2.1', () => true)).to.deep.equal({ outcome: 'right' });
    expect(await outage.bearer('192.0.2.1', () => false)).to.deep.equal({ outcome: 'wrong', nowLocked: false });
    const failure = await outage.attempt('192.0.2.1', () => true).catch((error: unknown) => error);
    expect(isDossierError(failure, 'ERR_STORE_UNAVAILABLE')).to.equal(true);
    const sessions = new AdminSessions(new KvSessionStore(backend.kv, backend.counters, clock), clock);
    for (let i = 0; i < 4; i++) await sessions.bearer('192.0.2.1', () => false);
    expect(await sessions.attempt('192.0.2.1', () => false)).to.deep.equal({ outcome: 'wrong', nowLocked: true });
    expect(await sessions.bearer('192.0.2.1', () => true)).to.deep.equal({ outcome: 'locked', lockedUntil: now + 60_000 });
  });
});
