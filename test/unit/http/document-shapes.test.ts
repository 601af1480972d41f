import { expect } from 'chai';
import { errorsOf } from '../../support/validation-errors.js';
import { documentChangesOf, documentIdOf, listingOf, newDocumentOf } from '../../../adapters/http/document-shapes.js';

describe("interface B's requests on the wire, as the library's input", () => {
  describe('listingOf', () => {
    it('leaves the defaults to the library', () => {
      expect(listingOf({})).to.deep.equal({ options: {}, filters: {} });
    });

    it('keeps every given filter, as numbers and flags, and as written for links', () => {
      const { options, filters } = listingOf({
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
      expect(options).to.deep.equal({
        search: 'Mixed Case',
        searchBy: 'result',
        templateId: 17,
        favorite: true,
        sortBy: 'name',
        sort: 'asc',
        perPage: 25,
        page: 3,
      });
      expect(filters).to.deep.equal({
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
      expect(listingOf({ search: '', per_page: '', favorite: '' })).to.deep.equal({ options: {}, filters: {} });
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
        expect(errorsOf(() => listingOf({ [field]: value }))).to.have.property(field);
      });
    }

    it('refuses a repeated parameter', () => {
      expect(errorsOf(() => listingOf({ sort: ['asc', 'desc'] }))).to.deep.equal({
        sort: ['The sort field must be a single value.'],
      });
    });

    it("refuses a parameter in PHP's array notation, which Laravel reads as an array", () => {
      expect(errorsOf(() => listingOf({ 'search[]': 'a', 'per_page[x]': '10', 'other[]': 'ignored' }))).to.deep.equal({
        search: ['The search field must be a single value.'],
        per_page: ['The per page field must be a single value.'],
      });
    });
  });

  describe('newDocumentOf', () => {
    it('trims, and applies creativity 0.5 and template 1 by default', () => {
      expect(newDocumentOf({ name: ' A ', prompt: ' p ' })).to.deep.equal({
        name: 'A',
        prompt: 'p',
        creativity: 0.5,
        templateId: 1,
      });
    });

    it('accepts creativity and template_id as strings or numbers', () => {
      expect(newDocumentOf({ name: 'a', prompt: 'p', creativity: '0.25', template_id: '72' })).to.include({
        creativity: 0.25,
        templateId: 72,
      });
      expect(newDocumentOf({ name: 'a', prompt: 'p', creativity: 1, template_id: 6 })).to.include({
        creativity: 1,
        templateId: 6,
      });
      expect(newDocumentOf({ name: 'a', prompt: 'p', creativity: '0' })).to.include({ creativity: 0 });
    });

    it('counts length in characters, not UTF-16 units', () => {
      expect(newDocumentOf({ name: '😀'.repeat(128), prompt: 'p' }).name).to.equal('😀'.repeat(128));
      expect(errorsOf(() => newDocumentOf({ name: '😀'.repeat(129), prompt: 'p' }))).to.have.property('name');
    });

    it('names every bad field', () => {
      const errors = errorsOf(() => newDocumentOf({ name: 42, prompt: 'x'.repeat(2049), creativity: '0.3', template_id: '73' }));
      expect(Object.keys(errors)).to.deep.equal(['name', 'prompt', 'creativity', 'template_id']);
    });

    it('requires name and prompt, also when blank', () => {
      expect(errorsOf(() => newDocumentOf({ name: '   ' }))).to.deep.equal({
        name: ['The name field is required.'],
        prompt: ['The prompt field is required.'],
      });
    });

    it('says how many more errors there are in the message', () => {
      try {
        newDocumentOf({});
        expect.fail('no error');
      } catch (error) {
        expect((error as Error).message).to.equal('The name field is required. (and 1 more error)');
      }
    });
  });

  describe('documentChangesOf', () => {
    it('returns only the fields sent', () => {
      expect(documentChangesOf({})).to.deep.equal({});
      expect(documentChangesOf({ favorite: '1', other: 'x' })).to.deep.equal({ favorite: true });
      expect(documentChangesOf({ favorite: false, result: '' })).to.deep.equal({ favorite: false, result: '' });
      expect(documentChangesOf({ result: null })).to.deep.equal({ result: null });
    });

    it('refuses a too long result, an empty name and a favorite outside 1/0/true/false', () => {
      const errors = errorsOf(() => documentChangesOf({ name: '', result: 'x'.repeat(20481), favorite: 'on' }));
      expect(Object.keys(errors)).to.deep.equal(['name', 'result', 'favorite']);
      expect(documentChangesOf({ result: 'x'.repeat(20480) }).result).to.have.length(20480);
    });
  });

  describe('documentIdOf', () => {
    it('accepts only positive integers in canonical form; any other id is no document', () => {
      expect(documentIdOf('7')).to.equal(7);
      for (const bad of ['007', '1e3', '-1', 'abc', '0', '1.0', '', ' 1', '9007199254740993', undefined]) {
        expect(() => documentIdOf(bad), String(bad))
          .to.throw()
          .with.property('code', 'ERR_DOCUMENT_NOT_FOUND');
      }
    });
  });
});
