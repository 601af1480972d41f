import { expect } from 'chai';
import { DossierValidationError } from '../../../lib/errors.js';
import { parseCreateInput, parseListQuery, parseUpdateInput } from '../../../lib/documents/validation.js';
import * as legacy from './legacy-validation.js';

/** What a parse answered: its value, or its 422 (errors in their order, and the message). */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify({ ok: run() });
  } catch (error) {
    if (!(error instanceof DossierValidationError)) throw error;
    return JSON.stringify({ errors: error.errors, message: error.message });
  }
}

/** Values a form, a JSON body or a query string may bring, around every boundary of every rule. */
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  '   ',
  ' a ',
  'a',
  'Mixed Case',
  42,
  0,
  1,
  -1,
  1.5,
  0.25,
  0.3,
  72,
  73,
  6.0,
  true,
  false,
  [],
  ['a'],
  ['asc', 'desc'],
  {},
  { a: 1 },
  '0',
  '1',
  '2',
  '-0',
  '+1',
  '01',
  '1.0',
  '72',
  '73',
  ' 72 ',
  '100',
  '0.25',
  '.25',
  ' 0.75 ',
  '000.250000',
  '0.2500000',
  '0000.25',
  '0.3',
  '1e3',
  '1e0',
  '0x1',
  '10',
  '25',
  '50',
  '100',
  '20',
  '10.0',
  '010',
  ' 10',
  'true',
  'false',
  'TRUE',
  'yes',
  'on',
  ' 1',
  'name',
  'result',
  'prompt',
  'id',
  'created_at',
  'asc',
  'desc',
  'up',
  '😀'.repeat(128),
  '😀'.repeat(129),
  ` ${'😀'.repeat(128)} `,
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(2048),
  'x'.repeat(2049),
  'x'.repeat(20480),
  'x'.repeat(20481),
  ` ${'x'.repeat(20480)}`,
  '\uD800',
  '\uD800'.repeat(129),
  '99999999999999999999',
  '999999999999999',
  '1000000000000000',
  '9007199254740993',
  '3',
];

const CREATE_FIELDS = ['name', 'prompt', 'creativity', 'template_id', 'other'];
const UPDATE_FIELDS = ['name', 'result', 'favorite', 'other'];
const LIST_FIELDS = ['search', 'search_by', 'template_id', 'favorite', 'sort_by', 'sort', 'per_page', 'page', 'other'];

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function inputs(fields: string[], base: Record<string, unknown>, extraKeys: string[] = []): Record<string, unknown>[] {
  const all: Record<string, unknown>[] = [{}, base];
  for (const field of fields) for (const value of VALUES) all.push({ ...base, [field]: value });
  const next = random(9);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)]!;
  for (let i = 0; i < 4000; i += 1) {
    const input: Record<string, unknown> = {};
    for (const field of [...fields, ...extraKeys]) if (next() < 0.6) input[field] = pick(VALUES);
    all.push(input);
  }
  return all;
}

describe('interface B validation from the schemas answers exactly as the hand-written rules did', () => {
  it('creates: every value of every field, and thousands of mixtures', () => {
    for (const input of inputs(CREATE_FIELDS, { name: 'n', prompt: 'p' })) {
      expect(
        outcome(() => parseCreateInput(input)),
        JSON.stringify(input),
      ).to.equal(outcome(() => legacy.parseCreateInput(input)));
    }
  });

  it('updates: every value of every field, and thousands of mixtures', () => {
    for (const input of inputs(UPDATE_FIELDS, {})) {
      expect(
        outcome(() => parseUpdateInput(input)),
        JSON.stringify(input),
      ).to.equal(outcome(() => legacy.parseUpdateInput(input)));
    }
  });

  it("lists: every value of every parameter, PHP's array notation, and thousands of mixtures", () => {
    for (const input of inputs(LIST_FIELDS, {}, ['search[]', 'per_page[x]', 'page[]', 'other[]'])) {
      expect(
        outcome(() => parseListQuery(input)),
        JSON.stringify(input),
      ).to.equal(outcome(() => legacy.parseListQuery(input)));
    }
  });
});
