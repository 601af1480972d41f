import { expect } from 'chai';
import { parseDomainName } from '../../../../lib/lookup/net/domain-name.js';

describe('parseDomainName', () => {
  it('lower-cases and strips one trailing dot', () => {
    expect(parseDomainName('Example.COM.')).to.equal('example.com');
  });
});

describe('parseDomainName on IDNs', () => {
  it('turns Unicode labels into punycode and keeps punycode as it is', () => {
    expect(parseDomainName('Bücher.de')).to.equal('xn--bcher-kva.de');
    expect(parseDomainName('xn--bcher-kva.de')).to.equal('xn--bcher-kva.de');
    expect(parseDomainName('例え.テスト')).to.equal('xn--r8jz45g.xn--zckzah');
  });
});
