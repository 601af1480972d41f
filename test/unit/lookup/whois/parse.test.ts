import { expect } from 'chai';
import { parseBootstrap } from '../../../../lib/lookup/whois/rdap-bootstrap.js';
import { parseRdapAnswer } from '../../../../lib/lookup/whois/rdap.js';
import type { WhoisFacts } from '../../../../lib/lookup/whois/record.js';
import { parseWhoisText, tldWhoisServer } from '../../../../lib/lookup/whois/whois-text.js';
import { rdapDomain } from '../../../support/rdap-server.js';
import { registrarWhois, verisignNoMatch, verisignWhois } from '../../../support/whois-server.js';

const URL_ = 'https://rdap.example/domain/example.com';

/** The facts of an answer read as a registered domain's (fails the test otherwise). */
function factsOf(domain: string, text: string): WhoisFacts {
  const reading = parseWhoisText(domain, text);
  if (reading.outcome !== 'registered') expect.fail(`read as ${reading.outcome}`);
  return reading.facts;
}

describe('whois text parsing', () => {
  it('reads a Verisign registry answer', () => {
    const reading = parseWhoisText('example.com', verisignWhois({ domain: 'example.com' }));
    if (reading.outcome !== 'registered') expect.fail(reading.outcome);
    expect(reading.referral).to.equal('whois.markmonitor.com');
    expect(reading.facts).to.deep.equal({
      registrar: 'MarkMonitor Inc.',
      registrarUrl: 'http://www.markmonitor.com',
      registrarIanaId: '292',
      registrarAbuseEmail: 'abusecomplaints@markmonitor.com',
      registrant: { organization: null, countryCode: null },
      createdAt: '1997-09-15T04:00:00.000Z',
      updatedAt: '2019-09-09T15:39:04.000Z',
      expiresAt: '2028-09-14T04:00:00.000Z',
      nameServers: ['ns1.example.com', 'ns2.example.com'],
      status: ['clientDeleteProhibited', 'clientTransferProhibited', 'serverUpdateProhibited'],
      dnssec: false,
      whoisServer: 'whois.markmonitor.com',
    });
  });

  it("reads a registrar's answer, with its own expiration date label", () => {
    const facts = factsOf('example.com', registrarWhois({ domain: 'example.com' }));
    expect(facts.registrant).to.deep.equal({ organization: 'Example Holdings LLC', countryCode: 'US' });
    expect(facts).to.include({
      registrar: 'MarkMonitor, Inc.',
      expiresAt: '2028-09-13T07:00:00.000Z',
      createdAt: '1997-09-15T07:00:00.000Z',
    });
    expect(facts.status).to.deep.equal(['clientUpdateProhibited', 'clientTransferProhibited']);
  });

  it('reads "No match" as not found', () => {
    expect(parseWhoisText('free.com', verisignNoMatch('free.com')).outcome).to.equal('free');
  });

  it('does not read a registered answer as not found because of a "not found" phrase in its notices', () => {
    const text = `${verisignWhois({ domain: 'example.com' })}\r\nNot found what you need? Visit us.\r\n`;
    expect(parseWhoisText('example.com', text).outcome).to.equal('registered');
  });

  it('keeps a host:port referral and reduces a URL referral to its host', () => {
    const referral = (registrarWhois: string) => factsOf('a.com', verisignWhois({ domain: 'a.com', registrarWhois })).whoisServer;
    expect(referral('whois.registrar.test:4343')).to.equal('whois.registrar.test:4343');
    expect(referral('https://www.Registrar.example/whois')).to.equal('www.registrar.example');
    expect(referral('')).to.equal(null);
  });

  for (const [line, expected] of [
    ['DNSSEC: signedDelegation', true],
    ['DNSSEC: unsigned', false],
    ['dnssec: Signed', true],
    ['DNSSEC: no', false],
    ['DNSSEC: something else', null],
  ] as const) {
    it(`reads "${line}" as dnssec ${String(expected)}`, () => {
      expect(factsOf('a.com', `Domain Name: A.COM\nRegistrar: X\n${line}\n`).dnssec).to.equal(expected);
    });
  }

  it('reads nothing from garbage, without throwing', () => {
    expect(parseWhoisText('a.fr', '\u0000\u00ff\ufffd%%%\nregistrar:\nnic-hdl: X\n').outcome).to.equal('empty');
  });

  it("reads IANA's whois: line for a TLD", () => {
    expect(tldWhoisServer('domain:       COM\n\nwhois:        whois.verisign-grs.com\n')).to.equal('whois.verisign-grs.com');
    expect(tldWhoisServer('% This query returned 0 objects.\n')).to.equal(null);
  });
});

describe('RDAP parsing', () => {
  it('reads a domain object', () => {
    const answer = parseRdapAnswer(
      200,
      JSON.stringify(
        rdapDomain({
          domain: 'example.com',
          related: 'https://rdap.registrar.example/domain/example.com',
          port43: 'Whois.Example',
        }),
      ),
      URL_,
    );
    expect(answer).to.deep.equal({
      notFound: false,
      referral: 'https://rdap.registrar.example/domain/example.com',
      facts: {
        registrar: 'MarkMonitor Inc.',
        registrarUrl: null,
        registrarIanaId: '292',
        registrarAbuseEmail: 'abusecomplaints@markmonitor.com',
        registrant: { organization: null, countryCode: null },
        createdAt: '1997-09-15T04:00:00.000Z',
        updatedAt: '2019-09-09T15:39:04.000Z',
        expiresAt: '2028-09-14T04:00:00.000Z',
        nameServers: ['ns1.example.com', 'ns2.example.com'],
        status: ['clientDeleteProhibited', 'clientTransferProhibited', 'serverUpdateProhibited'],
        dnssec: false,
        whoisServer: 'whois.example',
      },
    });
  });

  /** The registrant entity of RFC 9083, with an RFC 9537 `redacted` list when given. */
  const withRegistrant = (adr: unknown[], redacted?: unknown[]) => {
    const object = rdapDomain({ domain: 'example.com' });
    (object.entities as unknown[]).push({
      objectClassName: 'entity',
      roles: ['registrant'],
      vcardArray: [
        'vcard',
        [['version', {}, 'text', '4.0'], ['fn', {}, 'text', ''], ['org', {}, 'text', 'Example Holdings LLC'], adr],
      ],
    });
    if (redacted !== undefined) object.redacted = redacted;
    return parseRdapAnswer(200, JSON.stringify(object), URL_).facts.registrant;
  };

  it("reads the registrant's organization and country from its vCard, by code or by name", () => {
    expect(withRegistrant(['adr', { cc: 'us' }, 'text', ['', '', '', '', 'CA', '', '']])).to.deep.equal({
      organization: 'Example Holdings LLC',
      countryCode: 'US',
    });
    expect(withRegistrant(['adr', {}, 'text', ['', '', '', 'Seoul', '', '', 'Korea, Republic of']])).to.deep.equal({
      organization: 'Example Holdings LLC',
      countryCode: 'KR',
    });
  });

  it("gives null for what RFC 9537's redacted list withholds", () => {
    const registrant = withRegistrant(
      ['adr', { cc: 'US' }, 'text', ['', '', '', '', '', '', '']],
      [
        {
          name: { type: 'Registrant Organization' },
          prePath: "$.entities[?(@.roles[0]=='registrant')].vcardArray[1][?(@[0]=='org')]",
          method: 'removal',
        },
        { name: { type: 'Registrant Country' }, method: 'removal' },
      ],
    );
    expect(registrant).to.deep.equal({ organization: null, countryCode: null });
  });

  it('reads the country that a partly redacted address still gives (RFC 9537 emptyValue on street, city, postal code)', () => {
    const adr = "$.entities[?(@.roles[0]=='registrant')].vcardArray[1][?(@[0]=='adr')]";
    const emptied = (type: string, path: string) => ({ name: { type }, postPath: path, method: 'emptyValue' });
    const canada = ['adr', {}, 'text', ['', '', '', '', 'QC', '', 'Canada']];
    const partly = [
      emptied('Registrant Street', `${adr}[3][:3]`),
      emptied('Registrant City', `${adr}[3][3]`),
      emptied('Registrant Postal Code', `${adr}[3][5]`),
    ];
    expect(withRegistrant(canada, partly)).to.deep.equal({ organization: 'Example Holdings LLC', countryCode: 'CA' });
    // The country withheld, by its own part, a slice that holds it, or the whole address: null.
    for (const path of [`${adr}[3][6]`, `${adr}[3][4:7]`, `${adr}[3]`, adr]) {
      expect(withRegistrant(canada, [emptied('Registrant Address', path)]).countryCode, path).to.equal(null);
    }
  });

  it("takes the registrar's expiration when the registry gives no expiration event", () => {
    const object = rdapDomain({ domain: 'example.com' });
    object.events = [{ eventAction: 'registrar expiration', eventDate: '2030-01-02T03:04:05Z' }];
    expect(parseRdapAnswer(200, JSON.stringify(object), URL_).facts.expiresAt).to.equal('2030-01-02T03:04:05.000Z');
  });

  it('reads 404 and an error object with code 404 as not found', () => {
    expect(parseRdapAnswer(404, '', URL_).notFound).to.equal(true);
    expect(parseRdapAnswer(404, '{"errorCode":404}', URL_).notFound).to.equal(true);
  });

  it('leaves dnssec null when secureDNS is absent', () => {
    const object = rdapDomain({ domain: 'example.com' });
    delete object.secureDNS;
    expect(parseRdapAnswer(200, JSON.stringify(object), URL_).facts.dnssec).to.equal(null);
  });

  it('does not take a related link to itself as a referral', () => {
    expect(parseRdapAnswer(200, JSON.stringify(rdapDomain({ domain: 'example.com', related: URL_ })), URL_).referral).to.equal(
      null,
    );
  });

  for (const [name, status, body] of [
    ['malformed JSON', 200, '{"objectClassName":'],
    ['another object', 200, '{"objectClassName":"entity"}'],
    ['an array', 200, '[]'],
    ['a server error', 500, '{"errorCode":500}'],
  ] as const) {
    it(`refuses ${name} with ERR_UPSTREAM_FAILED`, () => {
      expect(() => parseRdapAnswer(status, body, URL_))
        .to.throw()
        .with.property('code', 'ERR_UPSTREAM_FAILED');
    });
  }
});

describe('RDAP bootstrap parsing', () => {
  it('maps each label to its base URL, preferring https, with a trailing slash', () => {
    const map = parseBootstrap(
      JSON.stringify({
        services: [
          [
            ['com', 'net'],
            ['http://rdap.verisign.com/com/v1/', 'https://rdap.verisign.com/com/v1/'],
          ],
          [['org'], ['https://rdap.publicinterestregistry.org/rdap']],
          [['bad'], ['ftp://x/']],
        ],
      }),
    );
    expect(Object.fromEntries(map)).to.deep.equal({
      com: 'https://rdap.verisign.com/com/v1/',
      net: 'https://rdap.verisign.com/com/v1/',
      org: 'https://rdap.publicinterestregistry.org/rdap/',
    });
  });

  it('refuses a document that is not a bootstrap registry', () => {
    expect(() => parseBootstrap('{}'))
      .to.throw()
      .with.property('code', 'ERR_UPSTREAM_FAILED');
    expect(() => parseBootstrap('nope'))
      .to.throw()
      .with.property('code', 'ERR_UPSTREAM_FAILED');
  });
});
