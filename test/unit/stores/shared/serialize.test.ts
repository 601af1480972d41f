import { expect } from 'chai';
import { deserialize, serialize } from '../../../../lib/stores/shared/serialize.js';

describe('the Keyv serializer of the stores', () => {
  it('writes plain JSON for values without a string that starts with a colon', () => {
    const value = { value: { id: 'key_1', scopes: ['lookup'], dailyLimit: null, n: 1.5 }, expires: null };
    expect(serialize(value)).to.equal(JSON.stringify(value));
    expect(deserialize(serialize(value))).to.deep.equal(value);
  });

  it('escapes a string that starts with a colon as Keyv does, and reads it back', () => {
    const value = { value: { name: ':colon', list: [':a', 'b:'], 'key:': 'x' } };
    const text = serialize(value);
    // @keyv/serialize's form: one more colon in front of such a string, keys left alone.
    expect(text).to.equal('{"value":{"name":"::colon","list":["::a","b:"],"key:":"x"}}');
    expect(deserialize(text)).to.deep.equal(value);
  });

  it('reads what @keyv/sqlite, @keyv/redis and @keyv/postgres wrote, base64 Buffers included', () => {
    expect(deserialize('{"value":"::x","expires":null}')).to.deep.equal({ value: ':x', expires: null });
    expect(deserialize('{"value":":base64:aGk="}')).to.deep.equal({ value: Buffer.from('hi') });
    expect(deserialize('{"value":{"text":"a \\":\\" b"}}')).to.deep.equal({ value: { text: 'a ":" b' } });
  });
});
