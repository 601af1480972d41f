import { expect } from 'chai';
import { DossierError } from '../../../lib/errors.js';
import type { DnsData, SslData, WhoisData } from '../../../lib/ports/lookup-service.js';
import { FRESH_MEMORY, type WatchMemory } from '../../../lib/watches/detect/detection.js';
import { judgeCheck, type CheckResult } from '../../../lib/watches/detect/judge.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function ssl(fingerprint: string, validTo: number, isValid = true): CheckResult {
  const data = {
    fingerprintSha256: fingerprint,
    validTo: new Date(validTo).toISOString(),
    issuer: { CN: 'Test CA' },
    isValid,
    authorizationError: isValid ? null : 'CERT_HAS_EXPIRED',
    hostnameMatches: true,
  } as unknown as SslData;
  return { ok: true, data };
}

function whois(fields: Partial<WhoisData>): CheckResult {
  return {
    ok: true,
    data: {
      registrar: 'Registrar A',
      expiresAt: '2027-01-01T00:00:00.000Z',
      nameServers: ['a.ns', 'b.ns'],
      status: ['ok'],
      ...fields,
    },
  };
}

function dns(fields: Partial<DnsData>): CheckResult {
  return {
    ok: true,
    data: { A: [], AAAA: [], MX: [], NS: [], TXT: [], CNAME: [], CAA: [], ...fields } as unknown as DnsData,
  };
}

const failure: CheckResult = {
  ok: false,
  error: new DossierError('ERR_UPSTREAM_TIMEOUT', 'The TLS peer did not answer in time.'),
};

/** Runs checks in order, each at its time, and returns the event types of each. */
function run(
  type: 'ssl' | 'whois' | 'dns',
  steps: [number, CheckResult][],
): { events: string[][]; memory: WatchMemory; data: unknown[][] } {
  let memory = FRESH_MEMORY;
  const events: string[][] = [];
  const data: unknown[][] = [];
  for (const [at, result] of steps) {
    const verdict = judgeCheck(type, memory, result, at);
    memory = verdict.memory;
    events.push(verdict.events.map((event) => event.type));
    data.push(verdict.events.map((event) => event.data));
  }
  return { events, memory, data };
}

describe('watch change detection', () => {
  describe('ssl', () => {
    it('sets a baseline at the first check: no change, only the thresholds and invalidity that already hold', () => {
      expect(run('ssl', [[T0, ssl('aa', T0 + 90 * DAY)]]).events).to.deep.equal([[]]);
      const first = run('ssl', [[T0, ssl('aa', T0 + 10 * DAY, false)]]);
      expect(first.events).to.deep.equal([['ssl.expiring', 'ssl.invalid']]);
      expect(first.data[0]![0]).to.deep.equal({
        threshold: 14,
        days_remaining: 10,
        valid_to: new Date(T0 + 10 * DAY).toISOString(),
        fingerprint_sha256: 'aa',
      });
      expect(first.data[0]![1]).to.deep.equal({
        authorization_error: 'CERT_HAS_EXPIRED',
        hostname_matches: true,
        valid_to: new Date(T0 + 10 * DAY).toISOString(),
      });
    });

    it('announces each threshold once per certificate as time moves, and again for a new certificate', () => {
      const validTo = T0 + 40 * DAY;
      const { events, data } = run('ssl', [
        [T0, ssl('aa', validTo)],
        [T0 + 10 * DAY, ssl('aa', validTo)], // 30 days left
        [T0 + 11 * DAY, ssl('aa', validTo)], // 29: still 30
        [T0 + 33 * DAY, ssl('aa', validTo)], // 7: jumps over 14
        [T0 + 34 * DAY, ssl('aa', validTo)],
        [T0 + 39 * DAY, ssl('aa', validTo)], // 1
        [T0 + 39 * DAY + 1000, ssl('aa', validTo)],
        [T0 + 39 * DAY + 2000, ssl('bb', validTo + 1000)], // renewed, but as short
      ]);
      expect(events).to.deep.equal([
        [],
        ['ssl.expiring'],
        [],
        ['ssl.expiring'],
        [],
        ['ssl.expiring'],
        [],
        ['ssl.expiring', 'ssl.changed'],
      ]);
      expect(
        data
          .flat()
          .filter((d) => (d as { threshold?: number }).threshold !== undefined)
          .map((d) => (d as { threshold: number }).threshold),
      ).to.deep.equal([30, 7, 1, 1]);
      expect(data[7]![1]).to.deep.equal({
        previous: { fingerprint_sha256: 'aa', valid_to: new Date(validTo).toISOString(), issuer: { CN: 'Test CA' } },
        current: { fingerprint_sha256: 'bb', valid_to: new Date(validTo + 1000).toISOString(), issuer: { CN: 'Test CA' } },
      });
    });

    it('announces invalidity when it turns false, once until it is valid again', () => {
      const validTo = T0 + 300 * DAY;
      expect(
        run('ssl', [
          [T0, ssl('aa', validTo)],
          [T0 + 1, ssl('aa', validTo, false)],
          [T0 + 2, ssl('aa', validTo, false)],
          [T0 + 3, ssl('aa', validTo)],
          [T0 + 4, ssl('aa', validTo, false)],
        ]).events,
      ).to.deep.equal([[], ['ssl.invalid'], [], [], ['ssl.invalid']]);
    });

    it('treats an upstream failure as no change, and announces check.failed once at the third in a row', () => {
      const validTo = T0 + 300 * DAY;
      const { events, data } = run('ssl', [
        [T0, ssl('aa', validTo)],
        [T0 + 1, failure],
        [T0 + 2, failure],
        [T0 + 3, failure],
        [T0 + 4, failure],
        [T0 + 5, ssl('aa', validTo)],
        [T0 + 6, failure],
        [T0 + 7, failure],
        [T0 + 8, failure],
      ]);
      expect(events).to.deep.equal([[], [], [], ['check.failed'], [], [], [], [], ['check.failed']]);
      expect(data[3]![0]).to.deep.equal({
        code: 'upstream_timeout',
        message: 'The TLS peer did not answer in time.',
        failures: 3,
      });
    });

    it('does not take failures before the first success for a baseline', () => {
      expect(
        run('ssl', [
          [T0, failure],
          [T0 + 1, ssl('aa', T0 + 300 * DAY)],
        ]).events,
      ).to.deep.equal([[], []]);
    });
  });

  describe('whois', () => {
    it('announces 30, 7 and 1 days before expires_at, once each, and again for a new date', () => {
      const expires = '2026-02-01T00:00:00.000Z';
      const at = (days: number) => Date.parse(expires) - days * DAY;
      const { events, data } = run('whois', [
        [at(31), whois({ expiresAt: expires })],
        [at(30), whois({ expiresAt: expires })],
        [at(20), whois({ expiresAt: expires })],
        [at(6.5), whois({ expiresAt: expires })],
        [at(0.5), whois({ expiresAt: expires })],
        [at(0.4), whois({ expiresAt: expires })],
      ]);
      expect(events).to.deep.equal([[], ['whois.expiring'], [], ['whois.expiring'], ['whois.expiring'], []]);
      expect(data[3]![0]).to.deep.equal({ threshold: 7, expires_at: expires, days_remaining: 6 });
      const renewed = run('whois', [
        [at(0.5), whois({ expiresAt: expires })],
        [at(0.4), whois({ expiresAt: '2026-02-01T12:00:00.000Z' })],
      ]);
      expect(renewed.events).to.deep.equal([['whois.expiring'], ['whois.expiring', 'whois.changed']]);
    });

    it('reports registrar, expires_at and set changes, not a new order of the same set', () => {
      const { events, data } = run('whois', [
        [T0, whois({})],
        [T0 + 1, whois({ nameServers: ['b.ns', 'a.ns'], status: ['ok'] })],
        [T0 + 2, whois({ registrar: 'Registrar B', nameServers: ['a.ns', 'evil.ns'] })],
      ]);
      expect(events).to.deep.equal([[], [], ['whois.changed']]);
      expect(data[2]![0]).to.deep.equal({
        changes: {
          registrar: { before: 'Registrar A', after: 'Registrar B' },
          name_servers: { before: ['a.ns', 'b.ns'], after: ['a.ns', 'evil.ns'] },
        },
      });
    });
  });

  describe('dns', () => {
    it('reports added and removed records by type, ignoring TTLs and order, never at the first check', () => {
      const { events, data } = run('dns', [
        [T0, dns({ A: [{ address: '192.0.2.1', ttl: 60 }], MX: [{ exchange: 'mx.test', priority: 10 }], NS: ['a.ns', 'b.ns'] })],
        [
          T0 + 1,
          dns({ A: [{ address: '192.0.2.1', ttl: 30 }], MX: [{ exchange: 'mx.test', priority: 10 }], NS: ['b.ns', 'a.ns'] }),
        ],
        [
          T0 + 2,
          dns({ A: [{ address: '192.0.2.2', ttl: 30 }], MX: [{ exchange: 'mx.test', priority: 10 }], NS: ['a.ns', 'evil.ns'] }),
        ],
      ]);
      expect(events).to.deep.equal([[], [], ['dns.changed']]);
      expect(data[2]![0]).to.deep.equal({
        changes: { A: { added: ['192.0.2.2'], removed: ['192.0.2.1'] }, NS: { added: ['evil.ns'], removed: ['b.ns'] } },
      });
    });
  });

  describe('a baseline an older version stored (the lookups answered in snake_case then)', () => {
    // A watch record keeps its last picture; one written before the lookups spoke camelCase must read the same.
    const stored = (snapshot: Record<string, unknown>): WatchMemory => ({ ...FRESH_MEMORY, snapshot });

    it('ssl: an unchanged certificate is no change, a new one is, against the stored picture', () => {
      const validTo = new Date(T0 + 300 * DAY).toISOString();
      const memory = stored({ fingerprint_sha256: 'aa', valid_to: validTo, issuer: { CN: 'Test CA' }, is_valid: true });
      expect(judgeCheck('ssl', memory, ssl('aa', T0 + 300 * DAY), T0).events).to.deep.equal([]);
      const renewed = judgeCheck('ssl', memory, ssl('bb', T0 + 300 * DAY), T0);
      expect(renewed.events.map((event) => event.data)).to.deep.equal([
        {
          previous: { fingerprint_sha256: 'aa', valid_to: validTo, issuer: { CN: 'Test CA' } },
          current: { fingerprint_sha256: 'bb', valid_to: validTo, issuer: { CN: 'Test CA' } },
        },
      ]);
    });

    it('whois: the same registration is no change, a new expiry is, against the stored picture', () => {
      const memory = stored({
        registrar: 'Registrar A',
        expires_at: '2027-01-01T00:00:00.000Z',
        name_servers: ['a.ns', 'b.ns'],
        status: ['ok'],
      });
      expect(judgeCheck('whois', memory, whois({}), T0).events).to.deep.equal([]);
      const renewed = judgeCheck('whois', memory, whois({ expiresAt: '2028-01-01T00:00:00.000Z' }), T0);
      expect(renewed.events.map((event) => event.data)).to.deep.equal([
        { changes: { expires_at: { before: '2027-01-01T00:00:00.000Z', after: '2028-01-01T00:00:00.000Z' } } },
      ]);
    });
  });
});
