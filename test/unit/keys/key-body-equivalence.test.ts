import { expect } from 'chai';
import { DossierValidationError } from '../../../lib/errors.js';
import { checkKeyBody, checkUsageDays } from '../../../lib/keys/key-rules.js';
import { AdminKeyCreate, AdminKeyRoll, AdminKeyUpdate } from '../../../lib/schemas/keys.js';
import * as legacy from './legacy-key-rules.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

/** What checking answered: nothing, or its 422 errors (in their order) and message. */
function outcome(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (!(error instanceof DossierValidationError)) throw error;
    return JSON.stringify({ errors: error.errors, message: error.message });
  }
}

// The admin routes' checks as they were written by hand before the fields came from the schemas.
function checkAll(checks: [boolean, () => unknown][]): void {
  const errors: Record<string, string[]> = {};
  for (const [present, check] of checks) {
    if (!present) continue;
    try {
      check();
    } catch (error) {
      if (!(error instanceof DossierValidationError)) throw error;
      Object.assign(errors, error.errors);
    }
  }
  if (Object.keys(errors).length > 0) throw new DossierValidationError(errors);
}
function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((field) => !allowed.includes(field));
  if (unknown.length > 0) {
    throw new DossierValidationError(
      Object.fromEntries(
        unknown.map((field) => [field, [`Unknown field; this request takes ${allowed.join(', ') || 'no field'}.`]]),
      ),
    );
  }
}
const before = {
  create: (body: Record<string, unknown>) =>
    checkAll([
      [true, () => legacy.checkName(body.name)],
      [body.owner !== undefined && body.owner !== null, () => legacy.checkOwner(body.owner)],
      [body.scopes !== undefined && body.scopes !== null, () => legacy.checkScopes(body.scopes)],
      [body.daily_limit !== undefined, () => legacy.checkLimit(body.daily_limit)],
      [body.expires_at !== undefined, () => legacy.checkExpiry(body.expires_at, NOW)],
      [true, () => onlyFields(body, ['name', 'owner', 'scopes', 'daily_limit', 'expires_at'])],
    ]),
  update: (body: Record<string, unknown>) =>
    checkAll([
      [body.name !== undefined, () => legacy.checkName(body.name)],
      [body.scopes !== undefined, () => legacy.checkScopes(body.scopes)],
      [body.daily_limit !== undefined, () => legacy.checkLimit(body.daily_limit)],
      [body.expires_at !== undefined, () => legacy.checkExpiry(body.expires_at, NOW)],
      [true, () => onlyFields(body, ['name', 'scopes', 'daily_limit', 'expires_at'])],
    ]),
  roll: (body: Record<string, unknown>) =>
    checkAll([
      [body.grace_seconds !== undefined, () => legacy.checkGraceSeconds(body.grace_seconds)],
      [true, () => onlyFields(body, ['grace_seconds'])],
    ]),
};
const now = {
  create: (body: Record<string, unknown>) => checkKeyBody(AdminKeyCreate, body, NOW, ['owner', 'scopes']),
  update: (body: Record<string, unknown>) => checkKeyBody(AdminKeyUpdate, body, NOW),
  roll: (body: Record<string, unknown>) => checkKeyBody(AdminKeyRoll, body, NOW),
};

const FIELDS = ['name', 'owner', 'scopes', 'daily_limit', 'expires_at', 'grace_seconds', 'id', 'colour'];
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'ci',
  'x'.repeat(129),
  'a b',
  'team-1',
  0,
  1,
  -1,
  1.5,
  60,
  1_000_000_001,
  true,
  [],
  ['lookup'],
  ['lookup', 'lookup'],
  ['admin'],
  'lookup',
  '10',
  '2030-01-31',
  '2030-02-30',
  '2020-01-01',
  'tomorrow',
  '2030-01-31T12:00:00Z',
  {},
];

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("the admin API's key bodies, checked by the schemas' fields, answer exactly as the hand-written checks did", () => {
  const next = random(5);
  const bodies: Record<string, unknown>[] = [{}];
  for (const field of FIELDS) for (const value of VALUES) bodies.push({ [field]: value }, { name: 'ci', [field]: value });
  for (let i = 0; i < 3000; i += 1) {
    const body: Record<string, unknown> = {};
    for (const field of FIELDS) if (next() < 0.4) body[field] = VALUES[Math.floor(next() * VALUES.length)];
    bodies.push(body);
  }
  for (const route of ['create', 'update', 'roll'] as const) {
    it(`${route}: every field with every value, and thousands of mixtures`, () => {
      for (const body of bodies) {
        expect(
          outcome(() => now[route](body)),
          `${route} ${JSON.stringify(body)}`,
        ).to.equal(outcome(() => before[route](body)));
      }
    });
  }
});

describe('?days of a key’s usage, checked by the schema, answers exactly as the hand-written check did', () => {
  // The route's check as it was written by hand (90 was USAGE_DAYS_KEPT, 30 DEFAULT_USAGE_DAYS).
  function usageDays(values: string[]): number {
    if (values.length === 0) return 30;
    const [value] = values;
    if (values.length > 1 || value === undefined || !/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 90) {
      throw new DossierValidationError({ days: ['days must be one whole number from 1 to 90.'] });
    }
    return Number(value);
  }
  it('every value, alone and repeated', () => {
    const values = [
      '',
      '0',
      '00',
      '1',
      '01',
      '001',
      '0001',
      '7',
      '30',
      '90',
      '090',
      '91',
      '100',
      '999',
      '1000',
      '-1',
      '1.0',
      ' 1',
      'ten',
      '1e1',
    ];
    const cases: string[][] = [[], ...values.map((value) => [value]), ['1', '2'], ['30', '30']];
    for (const query of cases) {
      const answer = (run: () => unknown) => {
        try {
          return JSON.stringify({ ok: run() });
        } catch (error) {
          return JSON.stringify({ errors: (error as DossierValidationError).errors });
        }
      };
      expect(
        answer(() => checkUsageDays(query)),
        JSON.stringify(query),
      ).to.equal(answer(() => usageDays(query)));
    }
  });
});
