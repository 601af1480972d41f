import { expect } from 'chai';
import { DossierError } from '../../../lib/errors.js';
import { parseBatchRequest } from '../../../lib/quota/batch-request.js';
import * as legacy from './legacy-batch-request.js';

/** What reading answered: the items, or the refusal's code and message. */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify({ ok: run() });
  } catch (error) {
    if (!(error instanceof DossierError)) throw error;
    return JSON.stringify({ code: error.code, message: error.message });
  }
}

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const SCALARS: unknown[] = [undefined, null, '', 'a.test', '1.1.1.1', 42, 0, true, false, 'yes', [], {}, ['a'], 'DNS', 'mx'];
const TYPES: unknown[] = ['dns', 'whois', 'ip', 'ssl', ...SCALARS];

describe('the batch reader from the schema answers exactly as the hand-written rules did', () => {
  it('bodies, text and thousands of item mixtures', () => {
    const next = random(7);
    const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)]!;
    const item = (): unknown => {
      if (next() < 0.1) return pick(SCALARS);
      const value: Record<string, unknown> = {};
      for (const field of ['type', 'domain', 'ip', 'fresh', 'other']) {
        if (next() < 0.7)
          value[field] = field === 'type' ? pick(TYPES) : field === 'fresh' ? pick([true, false, ...SCALARS]) : pick(SCALARS);
      }
      return value;
    };
    const bodies: unknown[] = [
      ...SCALARS,
      'nope',
      '{"lookups": [',
      '\uFEFF{"lookups":[{"type":"dns","domain":"a.test"}]}',
      { lookups: [] },
      { lookups: {} },
      { lookups: 'x' },
      { other: [] },
      { lookups: Array.from({ length: 100 }, () => ({ type: 'dns', domain: 'a.test' })) },
      { lookups: Array.from({ length: 101 }, () => ({ type: 'dns', domain: 'a.test' })) },
      { lookups: [...Array.from({ length: 101 }, () => ({ type: 'dns', domain: 'a.test' })), null] },
      { lookups: [null, ...Array.from({ length: 100 }, () => ({ type: 'dns', domain: 'a.test' }))] },
    ];
    for (let i = 0; i < 5000; i += 1) {
      const lookups = Array.from({ length: 1 + Math.floor(next() * 4) }, item);
      bodies.push({ lookups });
      if (i % 10 === 0) bodies.push(JSON.stringify({ lookups }));
    }
    for (const body of bodies) {
      expect(
        outcome(() => parseBatchRequest(body)),
        JSON.stringify(body),
      ).to.equal(outcome(() => legacy.parseBatchRequest(body)));
    }
  });
});
