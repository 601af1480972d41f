import { expect } from 'chai';
import { DossierValidationError } from '../../../lib/errors.js';
import * as rules from '../../../lib/keys/key-rules.js';
import * as legacy from './legacy-key-rules.js';

/** What a check answered: its value, or its 422 errors. */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify({ ok: run() ?? null });
  } catch (error) {
    if (!(error instanceof DossierValidationError)) throw error;
    return JSON.stringify({ errors: error.errors, message: error.message });
  }
}

const NOW = Date.parse('2026-11-23T12:00:00Z');

/** Values around every boundary of every key rule, and values of the wrong type. */
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  '\u00a0',
  '\ufeff',
  ' a ',
  'a',
  'ci',
  'x'.repeat(128),
  'x'.repeat(129),
  '😀'.repeat(64),
  '😀'.repeat(65),
  '😀'.repeat(128),
  'a\u0000b',
  'a\tb',
  'a\nb',
  'tab\u007f',
  'é',
  'a b',
  'a.b_c@d-e',
  'o'.repeat(128),
  'o'.repeat(129),
  'ü',
  0,
  1,
  -1,
  1.5,
  1.0,
  60,
  1_000_000_000,
  1_000_000_001,
  2_592_000,
  2_592_001,
  Infinity,
  NaN,
  true,
  false,
  [],
  ['lookup'],
  ['documents', 'lookup'],
  ['lookup', 'lookup'],
  ['admin'],
  ['lookup', 'admin'],
  [1],
  {},
  'lookup',
  '10',
  '60',
  '2030-01-31',
  '2030-02-30',
  '2030-13-01',
  '2020-01-01',
  '2026-11-23',
  '2026-11-24',
  '2030-01-31T12:00:00Z',
  '2030-01-31T12:00Z',
  '2030-01-31T12:00:00.123456789+02:00',
  '2030-01-31T24:00:00Z',
  '2030-01-31T12:60:00Z',
  '2030-01-31T12:00:60Z',
  '2030-01-31T12:00:00',
  '2026-11-23T11:59:59Z',
  '2026-11-23T12:00:01Z',
  'tomorrow',
  '2030-1-31',
  ' 2030-01-31',
  '２０３０-01-31',
  '+002030-01-31',
];

describe('the key rules from the schemas answer exactly as the hand-written ones did', () => {
  const checks: [string, (value: unknown) => unknown, (value: unknown) => unknown][] = [
    ['checkName', rules.checkName, legacy.checkName],
    ['checkOwner', rules.checkOwner, legacy.checkOwner],
    ['checkScopes', rules.checkScopes, legacy.checkScopes],
    ['checkLimit', rules.checkLimit, legacy.checkLimit],
    ['checkExpiry', (value) => rules.checkExpiry(value, NOW), (value) => legacy.checkExpiry(value, NOW)],
    ['checkGraceSeconds', rules.checkGraceSeconds, legacy.checkGraceSeconds],
  ];
  for (const [name, now, before] of checks) {
    it(`${name}: every value`, () => {
      for (const value of VALUES)
        expect(
          outcome(() => now(value)),
          `${name}(${String(value)})`,
        ).to.equal(outcome(() => before(value)));
    });
  }

  it('keeps the scopes and the longest grace period it exported', () => {
    expect(rules.SCOPES).to.deep.equal(legacy.SCOPES);
    expect(rules.MAX_GRACE_SECONDS).to.equal(legacy.MAX_GRACE_SECONDS);
  });
});
