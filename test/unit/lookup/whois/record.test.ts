import { expect } from 'chai';
import {
  completeFacts,
  emptyFacts,
  normalizeNameServer,
  normalizeStatus,
  toIsoDate,
} from '../../../../lib/lookup/whois/record.js';

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
      ['Registered until expiry date.', 'Registered until expiry date.'],
    ] as const) {
      it(`${JSON.stringify(given)} → ${expected}`, () => expect(normalizeStatus(given)).to.equal(expected));
    }
    it('gives null for an empty value', () => expect(normalizeStatus('  https://icann.org/epp ')).to.equal(null));
  });

  describe('toIsoDate', () => {
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
    ] as const) {
      it(`${given} → ${expected}`, () => expect(toIsoDate(given)).to.equal(expected));
    }
    for (const given of ['', 'REDACTED', 'before 1996', '2024-13-45', 'tomorrow', null, undefined]) {
      it(`${JSON.stringify(given)} → null`, () => expect(toIsoDate(given)).to.equal(null));
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
        name_servers: ['ns1.a.com'],
        whois_server: 'whois.registrar.com',
      };
      const registrar = {
        ...emptyFacts(),
        registrar: 'Registrar Says',
        registrar_url: 'https://registrar.example',
        name_servers: ['ns9.a.com'],
        status: ['ok'],
        dnssec: false,
        whois_server: 'whois.registrar.example',
      };
      expect(completeFacts(registry, registrar)).to.deep.equal({
        ...emptyFacts(),
        registrar: 'Registry Says',
        registrar_url: 'https://registrar.example',
        name_servers: ['ns1.a.com'],
        status: ['ok'],
        dnssec: false,
        whois_server: 'whois.registrar.example',
      });
    });
  });
});
