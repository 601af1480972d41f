import { expect } from 'chai';
import type { RegistryProfile } from '../../../../lib/lookup/whois/registries/profile.js';
import { REGISTRY_PROFILES } from '../../../../lib/lookup/whois/registries/profiles.js';
import { GENERIC_LABELS } from '../../../../lib/lookup/whois/registries/labels.js';
import { decodeWhoisAnswer, registryProfile, serverProfile, whoisQuestion } from '../../../../lib/lookup/whois/whois-text.js';

describe('whois registry profiles', () => {
  describe('every row of the table', () => {
    const seen = new Map<string, number>();
    for (const [index, profile] of REGISTRY_PROFILES.entries()) {
      const name = `row ${index} (${profile.tlds.join(', ')})`;
      it(`${name} is well formed`, () => {
        expect(profile.tlds, name).not.to.be.empty;
        for (const tld of profile.tlds) {
          expect(tld, name).to.match(/^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/);
          expect(seen.get(tld), `${tld} is in two rows`).to.equal(undefined);
          seen.set(tld, index);
        }
        for (const server of profile.servers ?? []) expect(server, name).to.match(/^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/);
        if (profile.query !== undefined) expect(profile.query.split('{domain}'), name).to.have.length(2);
        if (profile.charset !== undefined) expect(() => new TextDecoder(profile.charset), name).not.to.throw();
        if (profile.dateOrder !== undefined) expect(['dmy', 'mdy'], name).to.include(profile.dateOrder);
        for (const field of Object.keys(profile.labels ?? {})) expect(GENERIC_LABELS, name).to.have.property(field);
      });
    }
  });

  it('chooses the row with the longest TLD that ends the domain, else the server asked', () => {
    const table: RegistryProfile[] = [{ tlds: ['uk'], servers: ['whois.nic.uk'] }, { tlds: ['ac.uk'] }];
    expect(registryProfile('www.ox.ac.uk', undefined, table)).to.equal(table[1]);
    expect(registryProfile('bbc.co.uk', undefined, table)).to.equal(table[0]);
    expect(registryProfile('example.org', 'WHOIS.NIC.UK', table)).to.equal(table[0]);
    expect(registryProfile('example.org', 'whois.example', table)).to.equal(null);
    expect(serverProfile('whois.nic.uk', table)).to.equal(table[0]);
  });

  it('asks each registry in the form it expects, and any other server the bare name', () => {
    expect(whoisQuestion('whois.denic.de', 'müller.de')).to.equal('-T dn,ace müller.de');
    expect(whoisQuestion('whois.jprs.jp', 'example.jp')).to.equal('example.jp/e');
    expect(whoisQuestion('whois.verisign-grs.com', 'example.com')).to.equal('domain example.com');
    expect(whoisQuestion('whois.nic.name', 'carletti.name')).to.equal('domain=carletti.name');
    // The operator's own server (DOSSIER_WHOIS_SERVER) and registrars get the name alone.
    expect(whoisQuestion('127.0.0.1', 'example.de')).to.equal('example.de');
    expect(whoisQuestion('whois.markmonitor.com', 'example.com')).to.equal('example.com');
  });

  describe('the charset of an answer', () => {
    const profile = (charset?: string): RegistryProfile => ({ tlds: ['test'], charset });

    it('reads valid UTF-8 as UTF-8, whatever the registry', () => {
      expect(decodeWhoisAnswer(Buffer.from('Inhaber: Müller GmbH', 'utf8'), profile('euc-kr'))).to.equal('Inhaber: Müller GmbH');
    });

    it('reads other bytes in ISO-8859-1 unless the registry uses another charset, never with U+FFFD', () => {
      const latin1 = Buffer.from('Inhaber: M\u00fcller GmbH', 'latin1');
      expect(decodeWhoisAnswer(latin1, null)).to.equal('Inhaber: Müller GmbH');
      expect(decodeWhoisAnswer(Buffer.from([0xb1, 0xb8, 0xb1, 0xdb]), profile('euc-kr'))).to.equal('구글');
      expect(decodeWhoisAnswer(Buffer.from([0xa4, 0xa4, 0xb5, 0xd8]), profile('big5'))).to.equal('中華');
      expect(decodeWhoisAnswer(Buffer.from('1b2442467c4b5c1b2842', 'hex'), profile('iso-2022-jp'))).to.equal('日本');
      const all = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
      expect(decodeWhoisAnswer(all, null)).not.to.include('\ufffd');
    });
  });
});
