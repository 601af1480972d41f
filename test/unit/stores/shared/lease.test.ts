import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryCounterStore } from '../../../../lib/stores/memory/counters.js';
import { withLease } from '../../../../lib/stores/shared/lease.js';

describe('withLease', () => {
  let now: number;
  let counters: MemoryCounterStore;
  beforeEach(() => {
    now = Date.UTC(2030, 0, 1);
    counters = new MemoryCounterStore({ now: () => now });
  });

  it('runs the holders of one lease one at a time, and gives it back when done or failed', async () => {
    const events: string[] = [];
    const hold = (label: string, fail = false) =>
      withLease(counters, 'l', async () => {
        events.push(`${label} in`);
        await sleep(20);
        events.push(`${label} out`);
        if (fail) throw new Error(label);
      });
    const outcomes = await Promise.allSettled([hold('a', true), hold('b'), hold('c')]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'fulfilled', 'fulfilled']);
    for (let i = 0; i < events.length; i += 2) expect(events[i + 1]).to.equal(events[i]!.replace('in', 'out'));
    expect(await counters.acquireLease('l', 'next', 1000)).to.equal(true);
  });

  it('takes over a lease whose holder died once it expires', async () => {
    expect(await counters.acquireLease('l', 'dead', 10_000)).to.equal(true);
    let ran = false;
    const waiting = withLease(counters, 'l', async () => {
      ran = true;
    });
    await sleep(30);
    expect(ran).to.equal(false);
    now += 10_000;
    await waiting;
    expect(ran).to.equal(true);
  });

  it('lets a holder slower than its lease free nothing when it finishes', async () => {
    let finishSlow!: () => void;
    const slow = withLease(counters, 'l', () => new Promise<void>((resolve) => (finishSlow = resolve)));
    await sleep(10);
    now += 10_000;
    let finishNext!: () => void;
    const next = withLease(counters, 'l', () => new Promise<void>((resolve) => (finishNext = resolve)));
    await sleep(30);
    finishSlow();
    await slow;
    expect(await counters.acquireLease('l', 'third', 1000), 'the second holder still holds it').to.equal(false);
    finishNext();
    await next;
    expect(await counters.acquireLease('l', 'third', 1000)).to.equal(true);
  });

  it('keeps the lease of a living holder renewed however long it holds it, and lets it go soon after', async () => {
    const real = new MemoryCounterStore({ now: () => Date.now() });
    let finish!: () => void;
    const holding = withLease(real, 'l', () => new Promise<void>((resolve) => (finish = resolve)), { ttlMs: 150 });
    await sleep(600);
    expect(await real.acquireLease('l', 'other', 1000), 'renewed past four of its lifetimes').to.equal(false);
    finish();
    await holding;
    expect(await real.acquireLease('l', 'other', 1000), 'given back').to.equal(true);
  });

  it('asks a store slow to answer one renewal at a time, and gives the lease back after the last', async () => {
    const real = new MemoryCounterStore({ now: () => Date.now() });
    let asked = 0;
    let mostAtOnce = 0;
    let atOnce = 0;
    // A store that takes ten times the renewal pause to answer: renewals on a fixed beat would pile up.
    const slow = Object.assign(Object.create(real) as MemoryCounterStore, {
      async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
        if (asked++ === 0) return real.acquireLease(name, owner, ttlMs);
        mostAtOnce = Math.max(mostAtOnce, ++atOnce);
        await sleep(200);
        atOnce -= 1;
        return real.acquireLease(name, owner, ttlMs);
      },
    });
    await withLease(slow, 'l', () => sleep(700), { ttlMs: 60 });
    expect(mostAtOnce).to.equal(1);
    expect(asked).to.be.within(2, 5);
    expect(await real.acquireLease('l', 'other', 1000), 'given back, not taken again by a late renewal').to.equal(true);
  });
});
