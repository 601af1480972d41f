import { expect } from 'chai';
import { DueQueue, type Due } from '../../../lib/watches/jobs/due-queue.js';

describe("the timer engine's due queue", () => {
  const at = (time: number): Due => ({ at: time, run: async () => null });

  /** Every key due by `now`, in the order the queue gives them out. */
  function drain(queue: DueQueue, now: number): string[] {
    const keys: string[] = [];
    for (let taken; (taken = queue.takeDue(now)) !== undefined;) keys.push(taken.key);
    return keys;
  }

  it('gives out what is due earliest first, and nothing due later', () => {
    const queue = new DueQueue();
    const times = Array.from({ length: 500 }, (_, n) => (n * 7919) % 1000);
    times.forEach((time, n) => queue.set(`w${n}`, at(time)));
    expect(queue.nextAt()).to.equal(0);
    const taken: number[] = [];
    for (let next; (next = queue.takeDue(499)) !== undefined;) taken.push(next.due.at);
    expect(taken).to.deep.equal([...taken].sort((a, b) => a - b));
    expect(taken).to.have.length(times.filter((time) => time <= 499).length);
    expect(queue.size).to.equal(times.filter((time) => time > 499).length);
    expect(queue.nextAt()).to.equal(Math.min(...times.filter((time) => time > 499)));
  });

  it('keeps only the last time set for a key, and forgets a deleted one', () => {
    const queue = new DueQueue();
    queue.set('a', at(10));
    queue.set('b', at(20));
    queue.set('a', at(30));
    queue.set('c', at(5));
    queue.delete('c');
    expect(queue.nextAt()).to.equal(20);
    expect(drain(queue, 25)).to.deep.equal(['b']);
    expect(queue.has('a')).to.equal(true);
    expect(drain(queue, 30)).to.deep.equal(['a']);
    expect(queue.size).to.equal(0);
    expect(queue.nextAt()).to.equal(Infinity);
  });

  it('stays right when pieces replaced many times outnumber the live ones', () => {
    const queue = new DueQueue();
    for (let round = 0; round < 50; round += 1) {
      for (let n = 0; n < 100; n += 1) queue.set(`w${n}`, at(round * 1000 + n));
    }
    expect(queue.size).to.equal(100);
    expect(drain(queue, 49_049)).to.deep.equal(Array.from({ length: 50 }, (_, n) => `w${n}`));
    expect(queue.nextAt()).to.equal(49_050);
  });
});
