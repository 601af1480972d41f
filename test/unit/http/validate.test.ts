import { expect } from 'chai';
import { validateAgainst } from '../../../adapters/http/schemas/validate.js';
import { AdminKeyCreate, BatchRequest } from '../../../adapters/http/schemas/shapes.js';

describe('request validation from the declared schemas', () => {
  it('accepts a body that matches, typed by its schema', () => {
    const result = validateAgainst(AdminKeyCreate, { name: 'ci', scopes: ['lookup'], daily_limit: 10 });
    expect(result.ok).to.equal(true);
    if (result.ok) expect(result.value.name).to.equal('ci');
  });

  it('names each field at fault with a sentence, Laravel style', () => {
    const result = validateAgainst(AdminKeyCreate, { name: '', scopes: ['lookup', 'admin'], daily_limit: 0, colour: 'red' });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors).to.deep.equal({
      name: ['The name field must not be empty.'],
      'scopes.1': ['The selected scopes.1 is invalid.'],
      // A nullable field is judged by its other alternative.
      daily_limit: ['The daily limit field must be at least 1.'],
      colour: ['The colour field is not allowed.'],
    });
  });

  it('reports a missing field, a body that is not an object, and the bounds of a list', () => {
    const missing = validateAgainst(AdminKeyCreate, {});
    expect(missing.ok ? {} : missing.errors).to.deep.equal({ name: ['The name field is required.'] });
    const array = validateAgainst(BatchRequest, []);
    expect(array.ok ? {} : array.errors).to.deep.equal({ body: ['The request body must be a JSON object of fields.'] });
    const empty = validateAgainst(BatchRequest, { lookups: [] });
    expect(empty.ok ? {} : empty.errors).to.deep.equal({ lookups: ['The lookups field must have at least 1 item.'] });
    const many = validateAgainst(BatchRequest, {
      lookups: Array.from({ length: 101 }, () => ({ type: 'dns', domain: 'a.test' })),
    });
    expect(many.ok ? {} : many.errors).to.deep.equal({ lookups: ['The lookups field must not have more than 100 items.'] });
    const item = validateAgainst(BatchRequest, { lookups: [{ type: 'ip', domain: 'a.test' }] });
    expect(item.ok ? {} : item.errors).to.deep.equal({ 'lookups.0': ['The selected lookups.0 is invalid.'] });
  });
});
