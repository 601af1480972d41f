import { expect } from 'chai';
import { DossierError } from '../../../lib/errors.js';
import { BATCH_MAX_ITEMS, parseBatchRequest } from '../../../lib/quota/batch-request.js';

/** The message of the `ERR_BATCH_INVALID` that reading `input` throws. */
function refusal(input: unknown): string {
  try {
    parseBatchRequest(input);
  } catch (error) {
    expect(error).to.be.instanceOf(DossierError);
    expect((error as DossierError).code).to.equal('ERR_BATCH_INVALID');
    return (error as DossierError).message;
  }
  throw new Error('no refusal');
}

describe('parseBatchRequest', () => {
  it('reads the items from JSON text (with or without a byte order mark) or from a parsed value', () => {
    const body = {
      lookups: [
        { type: 'dns', domain: 'example.com' },
        { type: 'ip', ip: '1.1.1.1', fresh: true },
      ],
    };
    const expected = [
      { kind: 'dns', query: 'example.com', fresh: false },
      { kind: 'ip', query: '1.1.1.1', fresh: true },
    ];
    expect(parseBatchRequest(body)).to.deep.equal(expected);
    expect(parseBatchRequest(JSON.stringify(body))).to.deep.equal(expected);
    expect(parseBatchRequest(`\uFEFF${JSON.stringify(body)}`)).to.deep.equal(expected);
  });

  it('leaves a query that is a string but not a valid domain to the lookup', () => {
    expect(parseBatchRequest({ lookups: [{ type: 'whois', domain: '' }] })).to.deep.equal([
      { kind: 'whois', query: '', fresh: false },
    ]);
  });

  it(`takes ${BATCH_MAX_ITEMS} items and refuses one more, naming the first one too many`, () => {
    const items = (count: number): unknown => ({
      lookups: Array.from({ length: count }, () => ({ type: 'dns', domain: 'a.test' })),
    });
    expect(parseBatchRequest(items(BATCH_MAX_ITEMS))).to.have.length(BATCH_MAX_ITEMS);
    expect(refusal(items(BATCH_MAX_ITEMS + 1))).to.contain(`lookups[${BATCH_MAX_ITEMS}]`);
  });

  it('names the item and the field at fault', () => {
    expect(
      refusal({
        lookups: [
          { type: 'dns', domain: 'a.test' },
          { type: 'DNS', domain: 'a.test' },
        ],
      }),
    ).to.contain('lookups[1].type "DNS"');
    expect(refusal({ lookups: [{ type: 'ip', ip: null }] })).to.contain('lookups[0].ip must be a string');
    expect(refusal({ lookups: [null] })).to.contain('lookups[0] must be an object');
    expect(refusal('nope')).to.contain('not valid JSON');
    expect(refusal(null)).to.contain('JSON object');
  });
});
