import { expect } from 'chai';
import { completeFacts, emptyFacts, normalizeNameServer, normalizeStatus } from '../../../../lib/lookup/whois/record.js';
import { parseWhoisDate } from '../../../../lib/lookup/whois/dates.js';

describe('whois record helpers', () => {
  describe('normalizeStatus', () => {
    for (const [given, expected] of [
      ['clientTransferProhibited https://icann.org/epp#clientTransferProhibited', 'clientTransferProhibited'],
      ['clientUpdateProhibited (https://www.icann.org/epp#clientUpdateProhibited)', 'clientUpdateProhibited'],
      ['client transfer prohibited', 'clientTransferProhibited'],
      ['server delete prohibited', 'serverDeleteProhibited'],
      ['pending delete', 'pendingDelete'],
      ['auto renew period', 'autoRenewPeriod'],
      ['active', 'ok'],
      ['ok https://icann.org/epp#ok', 'ok'],
      ['OK', 'ok'],
      ['connect', 'connect'],
      ['CLIENT DELETE PROHIBITED', 'clientDeleteProhibited'],
      ['RENEWPERIOD', 'renewPeriod'],
      ['redemption_period', 'redemptionPeriod'],
      ['Registered until expiry date.', 'registered until expiry date.'],
    ] as const) {
      it(`${JSON.stringify(given)} → ${expected}`, () => expect(normalizeStatus(given)).to.equal(expected));
    }
    it('gives null for an empty value', () => expect(normalizeStatus('  https://icann.org/epp ')).to.equal(null));
  });

  describe('parseWhoisDate', () => {
    for (const [given, expected] of [
      ['1997-09-15T04:00:00Z', '1997-09-15T04:00:00.000Z'],
      ['2028-09-13T07:00:00+0000', '2028-09-13T07:00:00.000Z'],
      ['2028-09-13T09:00:00+02:00', '2028-09-13T07:00:00.000Z'],
      ['2024-08-02T02:17:33.123Z', '2024-08-02T02:17:33.123Z'],
      ['2024-08-02 02:17:33', '2024-08-02T02:17:33.000Z'],
      ['2024-08-02', '2024-08-02T00:00:00.000Z'],
      ['2024.08.02', '2024-08-02T00:00:00.000Z'],
      ['17-Apr-1996', '1996-04-17T00:00:00.000Z'],
      ['02.08.2024', '2024-08-02T00:00:00.000Z'],
      ['2025-01-01T00:00:00Z 2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
      // docs/contract.md §10's examples: every registry's format, its zone applied.
      ['2019-09-09T08:39:04-0700', '2019-09-09T15:39:04.000Z'],
      ['12-Feb-2006 18:08:52 UTC', '2006-02-12T18:08:52.000Z'],
      ['2012. 05. 19.', '2012-05-19T00:00:00.000Z'],
      ['19961206', '1996-12-06T00:00:00.000Z'],
      ['19961206 #24302', '1996-12-06T00:00:00.000Z'],
      ['15.12.2015 09:48:01', '2015-12-15T09:48:01.000Z'],
      ['15.12.2015', '2015-12-15T00:00:00.000Z'],
      ['2023/04/01 01:05:57 (JST)', '2023-03-31T16:05:57.000Z'],
      ['1999-06-07 13:01:43 (GMT+0:00)', '1999-06-07T13:01:43.000Z'],
      ['1999-06-07 13:01:43 (GMT+2:00)', '1999-06-07T11:01:43.000Z'],
      ['2008-05-23 (YYYY-MM-DD)', '2008-05-23T00:00:00.000Z'],
      ['before 1 January 1996', '1996-01-01T00:00:00.000Z'],
      ['before Aug-1996', '1996-08-01T00:00:00.000Z'],
      ['Thu Jul 31 18:40:35 2014', '2014-07-31T18:40:35.000Z'],
      ['2009-03-25 01:57:22 PDT', '2009-03-25T08:57:22.000Z'],
      ['30/05/2005', '2005-05-30T00:00:00.000Z'],
      ['16/09/03', '2003-09-16T00:00:00.000Z'],
      ['2004-Mar-16.', '2004-03-16T00:00:00.000Z'],
    ] as const) {
      it(`${given} → ${expected}`, () => expect(parseWhoisDate(given)).to.equal(expected));
    }
    it("reads an ambiguous numeric date in the registry's order", () => {
      expect(parseWhoisDate('12/18/2001', 'mdy')).to.equal('2001-12-18T00:00:00.000Z');
      expect(parseWhoisDate('05/06/2020', 'mdy')).to.equal('2020-05-06T00:00:00.000Z');
      expect(parseWhoisDate('05/06/2020', 'dmy')).to.equal('2020-06-05T00:00:00.000Z');
      // A value only one order can read is read that way, whatever the registry's order.
      expect(parseWhoisDate('12/18/2001', 'dmy')).to.equal('2001-12-18T00:00:00.000Z');
    });
    for (const given of ['', 'REDACTED', 'before 1996', '2024-13-45', '31.02.2020', 'tomorrow', null, undefined]) {
      it(`${JSON.stringify(given)} → null`, () => expect(parseWhoisDate(given)).to.equal(null));
    }
  });

  describe('normalizeNameServer', () => {
    it('lower-cases and strips the trailing dot', () =>
      expect(normalizeNameServer('NS1.Example.COM.')).to.equal('ns1.example.com'));
    it('refuses what is not a host name', () => {
      expect(normalizeNameServer('ns1.example.com 192.0.2.1')).to.equal(null);
      expect(normalizeNameServer('localhost')).to.equal(null);
    });
  });

  describe('completeFacts', () => {
    it("keeps the registry's values and fills only what it lacks from the registrar", () => {
      const registry = {
        ...emptyFacts(),
        registrar: 'Registry Says',
        nameServers: ['ns1.a.com'],
        whoisServer: 'whois.registrar.com',
      };
      const registrar = {
        ...emptyFacts(),
        registrar: 'Registrar Says',
        registrarUrl: 'https://registrar.example',
        nameServers: ['ns9.a.com'],
        status: ['ok'],
        dnssec: false,
        whoisServer: 'whois.registrar.example',
      };
      expect(completeFacts(registry, registrar)).to.deep.equal({
        ...emptyFacts(),
        registrar: 'Registry Says',
        registrarUrl: 'https://registrar.example',
        nameServers: ['ns1.a.com'],
        status: ['ok'],
        dnssec: false,
        whoisServer: 'whois.registrar.example',
      });
    });
  });
});
