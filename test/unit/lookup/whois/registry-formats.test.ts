import { expect } from 'chai';
import type { WhoisFacts } from '../../../../lib/lookup/whois/record.js';
import { parseWhoisText } from '../../../../lib/lookup/whois/whois-text.js';

// Registries' current layouts, as their servers answer today (abridged: notices cut, contacts kept),
// read by the generic reader with no profile of their own unless one is named. The corpus test
// measures older answers of the same registries; these pin the shapes of newer ones.

function read(domain: string, text: string): WhoisFacts {
  const reading = parseWhoisText(domain, text);
  if (reading.outcome !== 'registered') expect.fail(`${domain} read as ${reading.outcome}`);
  return reading.facts;
}

describe('whois: current registry layouts', () => {
  it('.fi: dotted labels, blocks named on their own line above a blank line, day.month.year', () => {
    const facts = read(
      'google.fi',
      [
        'domain.............: google.fi',
        'status.............: Registered',
        'created............: 30.6.2006 13:55:10',
        'expires............: 1.7.2025 10:11:51',
        'available..........: 1.8.2025 10:11:51',
        'modified...........: 2.6.2024 10:36:14',
        '',
        'Nameservers',
        '',
        'nserver............: ns2.google.com [Technical Error]',
        'nserver............: ns1.google.com [OK]',
        '',
        'Holder',
        '',
        'name...............: Google LLC',
        'country............: United States of America',
        '',
        'Registrar',
        '',
        'registrar..........: MarkMonitor Inc.',
        'www................: www.markmonitor.com',
        '',
      ].join('\n'),
    );
    expect(facts).to.include({
      registrar: 'MarkMonitor Inc.',
      createdAt: '2006-06-30T13:55:10.000Z',
      updatedAt: '2024-06-02T10:36:14.000Z',
      expiresAt: '2025-07-01T10:11:51.000Z',
    });
    expect(facts.nameServers).to.deep.equal(['ns2.google.com', 'ns1.google.com']);
    expect(facts.registrant.countryCode).to.equal('US');
  });

  it(".sk: the registrar's name from its block, not the handle on the domain's line", () => {
    const facts = read(
      'google.sk',
      [
        'Domain:                       google.sk',
        'Registrant:                   GOOGLE-INC',
        'Registrar:                    MARK-0292',
        'Created:                      2003-07-24',
        'Valid Until:                  2025-07-24',
        'Updated:                      2024-06-12',
        'Domain Status:                ok',
        'Nameserver:                   ns1.google.com',
        'Nameserver:                   ns2.google.com',
        '',
        'Registrar:                    MARK-0292',
        'Name:                         MarkMonitor Inc.',
        'Organization:                 MarkMonitor Inc.',
        'Phone:                        +1.2083895740',
        'Created:                      2017-09-01',
        '',
      ].join('\n'),
    );
    expect(facts).to.include({
      registrar: 'MarkMonitor Inc.',
      createdAt: '2003-07-24T00:00:00.000Z',
      expiresAt: '2025-07-24T00:00:00.000Z',
    });
    expect(facts.status).to.deep.equal(['ok']);
  });

  it('.ee: a block name with an empty value, then its fields flush left', () => {
    const facts = read(
      'google.ee',
      [
        'Domain:',
        'name:       google.ee',
        'status:     ok (paid and in zone)',
        'registered: 2010-07-04 04:41:42 +03:00',
        'changed:    2024-06-04 10:23:41 +03:00',
        'expire:     2025-07-05',
        '',
        'Registrant:',
        'name:       Google LLC',
        'country:    US',
        'email:      Not Disclosed - Visit www.internet.ee for webbased WHOIS',
        '',
        'Registrar:',
        'name:       Zone Media OÜ',
        'url:        http://www.zone.ee',
        'changed:    2020-10-01 10:39:09 +03:00',
        '',
        'Name servers:',
        'nserver:   ns1.google.com',
        'nserver:   ns2.google.com',
        '',
      ].join('\n'),
    );
    expect(facts).to.include({
      registrar: 'Zone Media OÜ',
      createdAt: '2010-07-04T01:41:42.000Z',
      updatedAt: '2024-06-04T07:23:41.000Z',
      expiresAt: '2025-07-05T00:00:00.000Z',
    });
    expect(facts.nameServers).to.deep.equal(['ns1.google.com', 'ns2.google.com']);
    expect(facts.registrant.countryCode).to.equal('US');
  });

  it('.kz: "Registar" as the registry spells it, dates with a GMT offset, server labels by rank', () => {
    const facts = read(
      'google.kz',
      [
        'Domain Name............: google.kz',
        '',
        'Organization Using Domain Name',
        'Name...................: Google Inc.',
        'Organization Name......: Google Inc.',
        'Country................: US',
        '',
        'Nameserver in listed order',
        '',
        'Primary server.........: ns1.google.com',
        'Primary ip address.....: 216.239.32.10',
        '',
        'Secondary server.......: ns2.google.com',
        'Secondary ip address...: 216.239.34.10',
        '',
        'Domain created: 1999-06-07 13:01:43 (GMT+0:00)',
        'Last modified : 2012-11-28 07:29:45 (GMT+6:00)',
        'Domain status : clientTransferProhibited - status prohibits domain transfer',
        '                clientUpdateProhibited - status prohibits domain update',
        'Registar created: HOSTER.KZ',
        'Current Registar: HOSTER.KZ',
      ].join('\n'),
    );
    expect(facts).to.include({
      registrar: 'HOSTER.KZ',
      createdAt: '1999-06-07T13:01:43.000Z',
      updatedAt: '2012-11-28T01:29:45.000Z',
    });
    expect(facts.nameServers).to.deep.equal(['ns1.google.com', 'ns2.google.com']);
    expect(facts.status).to.deep.equal(['clientTransferProhibited', 'clientUpdateProhibited']);
    expect(facts.registrant).to.deep.equal({ organization: 'Google Inc.', countryCode: 'US' });
  });

  it('.ch: every value on the line under its label, a date "before 1 January 1996"', () => {
    const facts = read(
      'google.ch',
      [
        'Domain name:',
        'google.ch',
        '',
        'Holder of domain name:',
        'Google LLC',
        'Mountain View',
        'US',
        '',
        'Registrar:',
        'MarkMonitor Inc.',
        '',
        'First registration date:',
        'before 1 January 1996',
        '',
        'DNSSEC:N',
        '',
        'Name servers:',
        'ns1.google.com',
        'ns2.google.com',
        '',
      ].join('\n'),
    );
    expect(facts).to.include({ registrar: 'MarkMonitor Inc.', createdAt: '1996-01-01T00:00:00.000Z', dnssec: false });
    expect(facts.nameServers).to.deep.equal(['ns1.google.com', 'ns2.google.com']);
    expect(facts.registrant.organization).to.equal('Google LLC');
  });

  it('.edu: tab-indented blocks and "Domain record activated"', () => {
    const facts = read(
      'mit.edu',
      [
        'Domain Name: MIT.EDU',
        '',
        'Registrant:',
        '\tMassachusetts Institute of Technology',
        '\t77 Massachusetts Avenue',
        '\tCambridge, MA 02139',
        '\tUSA',
        '',
        'Name Servers: ',
        '\tUSE2.AKAM.NET',
        '\tASIA2.AKAM.NET',
        '',
        'Domain record activated:    23-May-1985',
        'Domain record last updated: 11-Jul-2024',
        'Domain expires:             31-Jul-2026',
      ].join('\n'),
    );
    expect(facts).to.include({
      createdAt: '1985-05-23T00:00:00.000Z',
      updatedAt: '2024-07-11T00:00:00.000Z',
      expiresAt: '2026-07-31T00:00:00.000Z',
    });
    expect(facts.nameServers).to.deep.equal(['use2.akam.net', 'asia2.akam.net']);
    expect(facts.registrant.organization).to.equal('Massachusetts Institute of Technology');
  });

  it('.hk: dates written inside the registrant block, found by its profile', () => {
    const facts = read(
      'google.hk',
      [
        'Domain Name:  GOOGLE.HK',
        'Domain Status: Active',
        'Registrar Name: MarkMonitor, Inc.',
        'Registrant Contact Information:',
        '',
        'Company English Name (It should be the same as the registered/corporation name on your Business Register Certificate or relevant documents): GOOGLE LLC',
        'Country: United States (US)',
        'Domain Name Commencement Date: 08-04-2004',
        'Expiry Date: 31-03-2026',
        'Re-registration Status: Complete',
        '',
        'Name Servers Information:',
        '',
        'NS1.GOOGLE.COM',
        'NS2.GOOGLE.COM',
      ].join('\n'),
    );
    expect(facts).to.include({
      registrar: 'MarkMonitor, Inc.',
      createdAt: '2004-04-08T00:00:00.000Z',
      expiresAt: '2026-03-31T00:00:00.000Z',
    });
    expect(facts.nameServers).to.deep.equal(['ns1.google.com', 'ns2.google.com']);
    expect(facts.status).to.deep.equal(['ok']);
    expect(facts.registrant.countryCode).to.equal('US');
  });

  it('.dk: never the domain itself among the name servers', () => {
    const facts = read(
      'google.dk',
      [
        'Domain:               google.dk',
        'DNS:                  google.dk',
        'Registered:           1999-01-10',
        'Nameservers',
        'Hostname:             ns1.google.com',
        'Hostname:             ns2.google.com',
      ].join('\n'),
    );
    expect(facts.nameServers).to.deep.equal(['ns1.google.com', 'ns2.google.com']);
  });

  it("CoCCA's 'Domain Status: No Object Found' is a free name", () => {
    const text = [
      'Domain Name: nobody-holds-this.cx',
      'Domain Status: No Object Found',
      '>>> Last update of WHOIS database: 2026-11-25T10:00:00.0Z <<<',
    ].join('\n');
    expect(parseWhoisText('nobody-holds-this.cx', text).outcome).to.equal('free');
  });

  it('an ICANN answer with redacted registrant fields gives null, not the placeholder', () => {
    const facts = read(
      'example.org',
      [
        'Domain Name: example.org',
        'Registrar: Example Registrar, Inc.',
        'Creation Date: 2005-01-01T00:00:00Z',
        'Registrant Organization: REDACTED FOR PRIVACY',
        'Registrant Country: Statutory Masking Enabled',
        'Registrar Abuse Contact Email: Abuse@Registrar.Example',
      ].join('\n'),
    );
    expect(facts.registrant).to.deep.equal({ organization: null, countryCode: null });
    expect(facts.registrarAbuseEmail).to.equal('abuse@registrar.example');
  });
});

describe('whois: hostile answers up to the 256 KiB cap', () => {
  const cap = 256 * 1024;
  for (const [name, unit] of [
    ['one endless line', 'a'],
    ['empty fields', 'x:\n'],
    ['colons', ':'],
    ['dots', '.'.repeat(99) + '\n'],
    ['wide gaps', `Registrar${' '.repeat(50)}x\n`],
    ['comments between fields', `${'%\n'.repeat(50)}a:\n`],
    ['name-server blocks', `Name servers:\n${' ns1.example.com\n'.repeat(10)}`],
    ['dates', `Created: ${'2020-01-01 '.repeat(12)}\n`],
  ] as const) {
    it(`reads ${name} without throwing`, () => {
      const text = unit.repeat(Math.ceil(cap / unit.length)).slice(0, cap);
      expect(['registered', 'free', 'limited', 'empty']).to.include(parseWhoisText('example.com', text).outcome);
    });
  }
});
