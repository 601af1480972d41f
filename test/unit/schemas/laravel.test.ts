import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { DossierValidationError } from '../../../lib/errors.js';
import { errorsOf } from '../../support/validation-errors.js';
import { checkLaravel, type LaravelRules } from '../../../lib/schemas/laravel.js';

// An ad-hoc schema: whatever it says is what is checked, with no rule of its own in the layer.
const Schema = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 3 }),
  size: Type.Optional(Type.Union([Type.Literal('s'), Type.Literal('m')])),
  count: Type.Optional(Type.Integer({ minimum: 2, maximum: 5 })),
  level: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 9 }), Type.String({ pattern: '^[1-9]$' })])),
});
const FORM: LaravelRules = {
  trim: 'all',
  emptyIsAbsent: true,
  messages: { level: 'Pick :min to :max.' },
  code: 'ERR_DOCUMENT_INVALID',
};

describe('checkLaravel: a JSON Schema check with Laravel manners', () => {
  it("takes the rules from the schema and words them as Laravel does, in the schema's order", () => {
    expect(errorsOf(() => checkLaravel(Schema, { count: '7', size: 'xl', title: 'long' }, FORM))).to.deep.equal({
      title: ['The title field must not be greater than 3 characters.'],
      size: ['The selected size is invalid.'],
      count: ['The count field must not be greater than 5.'],
    });
    expect(errorsOf(() => checkLaravel(Schema, { title: 'a', count: '1' }, FORM))).to.deep.equal({
      count: ['The count field must be at least 2.'],
    });
  });

  it('trims, treats empty as not sent, and refuses a blank required field as required', () => {
    expect(checkLaravel(Schema, { title: ' ab ', size: '', count: null }, FORM).values).to.deep.equal({ title: 'ab' });
    expect(errorsOf(() => checkLaravel(Schema, { title: '   ' }, FORM))).to.deep.equal({
      title: ['The title field is required.'],
    });
  });

  it("reads numbers written as text, in the form the schema's text alternative allows, else as canonical integers", () => {
    expect(checkLaravel(Schema, { title: 'a', count: '3', level: '4' }, FORM).values).to.deep.equal({
      title: 'a',
      count: 3,
      level: 4,
    });
    expect(errorsOf(() => checkLaravel(Schema, { title: 'a', count: '03', level: '04' }, FORM))).to.deep.equal({
      count: ['The count field must be an integer.'],
      level: ['Pick 1 to 9.'],
    });
  });

  it('refuses a query parameter that is not one value, and counts the other errors in the message', () => {
    const query: LaravelRules = { trim: [], emptyIsAbsent: true, singleValues: true, code: 'ERR_DOCUMENT_INVALID' };
    try {
      checkLaravel(Schema, { 'title[]': 'a', size: ['s', 'm'], count: 'x' }, query);
      expect.fail('no error');
    } catch (error) {
      expect((error as DossierValidationError).errors).to.deep.equal({
        title: ['The title field must be a single value.'],
        size: ['The size field must be a single value.'],
        count: ['The count field must be an integer.'],
      });
      expect((error as Error).message).to.equal('The title field must be a single value. (and 2 more errors)');
    }
  });
});
