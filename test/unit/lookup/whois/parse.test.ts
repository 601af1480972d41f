import { expect } from 'chai';
import { parseBootstrap } from '../../../../lib/lookup/whois/rdap-bootstrap.js';
import { parseRdapAnswer } from '../../../../lib/lookup/whois/rdap.js';
import { parseWhoisText, tldWhoisServer } from '../../../../lib/lookup/whois/whois-text.js';
import { rdapDomain } from '../../../support/rdap-server.js';
import { registrarWhois, verisignNoMatch, verisignWhois } from '../../../support/whois-server.js';

const URL_ = 'https://rdap.example/domain/example.com';

describe('whois text parsing', () => {
  it('reads a Verisign registry answer', () => {
    const { notFound, facts, referral } = parseWhoisText('example.com', verisignWhois({ domain: 'example.com' }));
    expect(notFound).to.equal(false);
    expect(referral).to.equal('whois.markmonitor.com');
    expect(facts).to.deep.equal({
      registrar: 'MarkMonitor Inc.',
      registrar_url: 'http://www.markmonitor.com',
      registrar_iana_id: '292',
      created_at: '1997-09-15T04:00:00.000Z',
      updated_at: '2019-09-09T15:39:04.000Z',
      expires_at: '2028-09-14T04:00:00.000Z',
      name_servers: ['ns1.example.com', 'ns2.example.com'],
      status: ['clientDeleteProhibited', 'clientTransferProhibited', 'serverUpdateProhibited'],
      dnssec: false,
      whois_server: 'whois.markmonitor.com',
    });
  });

  it("reads a registrar's answer, with its own expiration date label", () => {
    const { facts } = parseWhoisText('example.com', registrarWhois({ domain: 'example.com' }));
    expect(facts).to.include({
      registrar: 'MarkMonitor, Inc.',
      expires_at: '2028-09-13T07:00:00.000Z',
      created_at: '1997-09-15T07:00:00.000Z',
    });
    expect(facts.status).to.deep.equal(['clientUpdateProhibited', 'clientTransferProhibited']);
  });

  it('reads "No match" as not found', () => {
    expect(parseWhoisText('free.com', verisignNoMatch('free.com')).notFound).to.equal(true);
  });

  it('does not read a registered answer as not found because of a "not found" phrase in its notices', () => {
    const text = `${verisignWhois({ domain: 'example.com' })}\r\nNot found what you need? Visit us.\r\n`;
    expect(parseWhoisText('example.com', text).notFound).to.equal(false);
  });

  it('keeps a host:port referral and reduces a URL referral to its host', () => {
    expect(
      parseWhoisText('a.com', verisignWhois({ domain: 'a.com', registrarWhois: 'whois.registrar.test:4343' })).referral,
    ).to.equal('whois.registrar.test:4343');
    expect(
      parseWhoisText('a.com', verisignWhois({ domain: 'a.com', registrarWhois: 'https://www.Registrar.example/whois' })).referral,
    ).to.equal('www.registrar.example');
    expect(parseWhoisText('a.com', verisignWhois({ domain: 'a.com', registrarWhois: '' })).referral).to.equal(null);
  });

  for (const [line, expected] of [
    ['DNSSEC: signedDelegation', true],
    ['DNSSEC: unsigned', false],
    ['dnssec: Signed', true],
    ['DNSSEC: no', false],
    ['DNSSEC: something else', null],
  ] as const) {
    it(`reads "${line}" as dnssec ${String(expected)}`, () => {
      expect(parseWhoisText('a.com', `Domain Name: A.COM\nRegistrar: X\n${line}\n`).facts.dnssec).to.equal(expected);
    });
  }

  it('gives empty facts for garbage, without throwing', () => {
    const { notFound, facts } = parseWhoisText('a.fr', '\u0000\u00ff\ufffd%%%\nregistrar:\nnic-hdl: X\n');
    expect(notFound).to.equal(false);
    expect(facts.registrar).to.equal(null);
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
        registrar_url: null,
        registrar_iana_id: '292',
        created_at: '1997-09-15T04:00:00.000Z',
        updated_at: '2019-09-09T15:39:04.000Z',
        expires_at: '2028-09-14T04:00:00.000Z',
        name_servers: ['ns1.example.com', 'ns2.example.com'],
        status: ['clientDeleteProhibited', 'clientTransferProhibited', 'serverUpdateProhibited'],
        dnssec: false,
        whois_server: 'whois.example',
      },
    });
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
