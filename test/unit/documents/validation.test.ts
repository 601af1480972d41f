import { expect } from 'chai';
import { errorsOf } from '../../support/validation-errors.js';
import { parseCreateInput, parseDocumentId, parseListQuery, parseUpdateInput } from '../../../lib/documents/validation.js';

describe('document validation', () => {
  describe('parseListQuery', () => {
    it('applies the defaults of the specification', () => {
      const query = parseListQuery({});
      expect(query).to.deep.equal({
        searchBy: 'name',
        templateId: 1,
        sortBy: 'id',
        sort: 'desc',
        perPage: 10,
        page: 1,
        filters: {},
      });
    });

    it('keeps every given filter, normalized, and lower-cases the search', () => {
      const query = parseListQuery({
        search: 'Mixed Case',
        search_by: 'result',
        template_id: '17',
        favorite: 'true',
        sort_by: 'name',
        sort: 'asc',
        per_page: '25',
        page: '3',
        unknown: 'ignored',
      });
      expect(query.search).to.equal('mixed case');
      expect(query.favorite).to.equal(true);
      expect(query.templateId).to.equal(17);
      expect(query.perPage).to.equal(25);
      expect(query.page).to.equal(3);
      expect(query.filters).to.deep.equal({
        search: 'Mixed Case',
        search_by: 'result',
        template_id: '17',
        favorite: 'true',
        sort_by: 'name',
        sort: 'asc',
        per_page: '25',
      });
    });

    it('treats empty values as not given', () => {
      expect(parseListQuery({ search: '', per_page: '', favorite: '' }).filters).to.deep.equal({});
    });

    for (const [field, value] of [
      ['per_page', '20'],
      ['per_page', '10.0'],
      ['sort', 'up'],
      ['sort_by', 'created_at'],
      ['search_by', 'prompt'],
      ['template_id', '0'],
      ['template_id', '73'],
      ['template_id', '01'],
      ['template_id', '1.5'],
      ['favorite', 'yes'],
      ['favorite', 'TRUE'],
      ['page', '0'],
      ['page', '-1'],
      ['page', '1e3'],
      ['page', '99999999999999999999'],
    ] as const) {
      it(`refuses ${field}=${value}`, () => {
        expect(errorsOf(() => parseListQuery({ [field]: value }))).to.have.property(field);
      });
    }

    it('refuses a repeated parameter', () => {
      expect(errorsOf(() => parseListQuery({ sort: ['asc', 'desc'] }))).to.deep.equal({
        sort: ['The sort field must be a single value.'],
      });
    });

    it("refuses a parameter in PHP's array notation, which Laravel reads as an array", () => {
      expect(errorsOf(() => parseListQuery({ 'search[]': 'a', 'per_page[x]': '10', 'other[]': 'ignored' }))).to.deep.equal({
        search: ['The search field must be a single value.'],
        per_page: ['The per page field must be a single value.'],
      });
    });
  });

  describe('parseCreateInput', () => {
    it('trims, and applies creativity 0.5 and template 1 by default', () => {
      expect(parseCreateInput({ name: ' A ', prompt: ' p ' })).to.deep.equal({
        name: 'A',
        prompt: 'p',
        creativity: 0.5,
        templateId: 1,
      });
    });

    it('accepts creativity and template_id as strings or numbers', () => {
      expect(parseCreateInput({ name: 'a', prompt: 'p', creativity: '0.25', template_id: '72' })).to.include({
        creativity: 0.25,
        templateId: 72,
      });
      expect(parseCreateInput({ name: 'a', prompt: 'p', creativity: 1, template_id: 6 })).to.include({
        creativity: 1,
        templateId: 6,
      });
      expect(parseCreateInput({ name: 'a', prompt: 'p', creativity: '0' })).to.include({ creativity: 0 });
    });

    it('counts length in characters, not UTF-16 units', () => {
      expect(parseCreateInput({ name: '😀'.repeat(128), prompt: 'p' }).name).to.equal('😀'.repeat(128));
      expect(errorsOf(() => parseCreateInput({ name: '😀'.repeat(129), prompt: 'p' }))).to.have.property('name');
    });

    it('names every bad field', () => {
      const errors = errorsOf(() =>
        parseCreateInput({ name: 42, prompt: 'x'.repeat(2049), creativity: '0.3', template_id: '73' }),
      );
      expect(Object.keys(errors)).to.deep.equal(['name', 'prompt', 'creativity', 'template_id']);
    });

    it('requires name and prompt, also when blank', () => {
      expect(errorsOf(() => parseCreateInput({ name: '   ' }))).to.deep.equal({
        name: ['The name field is required.'],
        prompt: ['The prompt field is required.'],
      });
    });

    it('says how many more errors there are in the message', () => {
      try {
        parseCreateInput({});
        expect.fail('no error');
      } catch (error) {
        expect((error as Error).message).to.equal('The name field is required. (and 1 more error)');
      }
    });
  });

  describe('parseUpdateInput', () => {
    it('returns only the fields sent', () => {
      expect(parseUpdateInput({})).to.deep.equal({});
      expect(parseUpdateInput({ favorite: '1', other: 'x' })).to.deep.equal({ favorite: true });
      expect(parseUpdateInput({ favorite: false, result: '' })).to.deep.equal({ favorite: false, result: '' });
    });

    it('refuses a too long result, an empty name and a favorite outside 1/0/true/false', () => {
      const errors = errorsOf(() => parseUpdateInput({ name: '', result: 'x'.repeat(20481), favorite: 'on' }));
      expect(Object.keys(errors)).to.deep.equal(['name', 'result', 'favorite']);
      expect(parseUpdateInput({ result: 'x'.repeat(20480) }).result).to.have.length(20480);
    });
  });

  describe('parseDocumentId', () => {
    it('accepts only positive integers in canonical form', () => {
      expect(parseDocumentId('7')).to.equal(7);
      for (const bad of ['007', '1e3', '-1', 'abc', '0', '1.0', '', ' 1', '9007199254740993']) {
        expect(parseDocumentId(bad), bad).to.equal(undefined);
      }
    });
  });
});
