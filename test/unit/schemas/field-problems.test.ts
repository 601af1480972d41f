import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { compiledSchema, defineCheck, fieldProblems } from '../../../lib/schemas/ajv.js';

/** The phrases of `value`'s problems against `schema`, by the field's dotted path. */
function phrases(schema: Parameters<typeof compiledSchema>[0], value: unknown): Record<string, (string | null)[]> {
  const validate = compiledSchema(schema);
  expect(validate(value), 'the value should be refused').to.equal(false);
  const found: Record<string, (string | null)[]> = {};
  for (const { field, phrase } of fieldProblems(validate.errors ?? [])) (found[field.join('.')] ??= []).push(phrase);
  return found;
}

const ODD = defineCheck('test-odd', (value) => (value as number) % 2 === 1 || [`${String(value)} is even`]);

describe('fieldProblems: the one translation of ajv errors into words', () => {
  it('words each keyword as Laravel does, and names a missing or unexpected field', () => {
    const Schema = Type.Object(
      {
        name: Type.String({ minLength: 1 }),
        code: Type.String({ minLength: 3, maxLength: 4, pattern: '^[a-z]+$' }),
        count: Type.Integer({ minimum: 2, maximum: 5 }),
        tags: Type.Array(Type.String(), { minItems: 1, maxItems: 2, uniqueItems: true }),
        on: Type.Boolean(),
      },
      { additionalProperties: false },
    );
    expect(phrases(Schema, { name: '', code: 'AB', count: 9, tags: ['a', 'a', 'b'], on: 'yes', colour: 1 })).to.deep.equal({
      name: ['must not be empty'],
      code: ['must be at least 3 characters', 'format is invalid'],
      count: ['must not be greater than 5'],
      tags: ['must not have more than 2 items', 'has a duplicate value'],
      on: ['must be true or false'],
      colour: ['is not allowed'],
    });
    expect(phrases(Schema, { code: 'abcde', count: 3.5, tags: [], on: true })).to.deep.equal({
      name: ['is required'],
      code: ['must not be greater than 4 characters'],
      count: ['must be an integer'],
      tags: ['must have at least 1 item'],
    });
  });

  it("prefers the schema's own message, by keyword, with the value filled in", () => {
    const Port = Type.Integer({ minimum: 1, message: 'must be a port, not {input}' });
    expect(phrases(Type.Object({ port: Port }), { port: 0 })).to.deep.equal({ port: ['must be a port, not 0'] });
    const Text = Type.String({ minLength: 2, message: { minLength: 'is {length} long' } });
    expect(phrases(Type.Object({ text: Text }), { text: 'a' })).to.deep.equal({ text: ['is 1 long'] });
    expect(phrases(Type.Object({ text: Text }), { text: 3 })).to.deep.equal({ text: ['must be a string'] });
  });

  it("gives a named check's own problem", () => {
    expect(phrases(Type.Object({ n: Type.Integer({ check: ODD }) }), { n: 4 })).to.deep.equal({ n: ['4 is even'] });
  });

  it('judges a nullable field by its other alternative, and says none fits when several are left', () => {
    const Schema = Type.Object({
      limit: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
      size: Type.Union([Type.Literal('s'), Type.Literal('m'), Type.Null()]),
    });
    expect(phrases(Schema, { limit: 0, size: 'xl' })).to.deep.equal({ limit: ['must be at least 1'], size: [null] });
    expect(phrases(Schema, { limit: 'many', size: null })).to.deep.equal({ limit: ['must be an integer'] });
  });
});
