import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { isDossierError } from '../../../../lib/errors.js';
import { describeSession, SSL_CACHE_SECONDS, SslLookup } from '../../../../lib/lookup/ssl/ssl-lookup.js';
import {
  describeCertificate,
  distinguishedName,
  parseCertificateDate,
  subjectAltNames,
} from '../../../../lib/lookup/ssl/describe-certificate.js';
import { signatureAlgorithmOf } from '../../../../lib/lookup/ssl/signature-algorithm.js';
import type { TlsHandshake } from '../../../../lib/lookup/ssl/tls-handshake.js';
import { RangeTargetGuard } from '../../../../lib/lookup/net/target-guard.js';
import { resolveOptions, type DossierOptions } from '../../../../lib/options.js';
import type { DnsResolver } from '../../../../lib/ports/dns-resolver.js';
import { createSelfSigned, createTestPki, type TestCertificate } from '../../../support/certificates.js';

const DAY_MS = 86_400_000;

function handshakeOf(certificates: TestCertificate[], verdict: Partial<TlsHandshake> = {}): TlsHandshake {
  return {
    certificates: certificates.map((certificate) => new X509Certificate(certificate.der)),
    protocol: 'TLSv1.3',
    cipher: 'TLS_AES_256_GCM_SHA384',
    authorized: true,
    authorizationError: null,
    ...verdict,
  };
}

describe('SSL lookup: reading certificates', () => {
  let rsa: TestCertificate;
  let ecdsa: TestCertificate;
  let ed25519: TestCertificate;
  let oddNames: TestCertificate;
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2026-03-01T12:00:00Z');

  before(async function () {
    this.timeout(30_000);
    [rsa, ecdsa, ed25519, oddNames] = await Promise.all([
      createSelfSigned({ dnsNames: ['rsa.test'], notBefore, notAfter, serialNumber: '0aff10' }),
      createSelfSigned({ dnsNames: ['ec.test'], keyType: 'ecdsa' }),
      createSelfSigned({ dnsNames: ['ed.test'], keyType: 'ed25519' }),
      createSelfSigned({
        subject: 'CN=odd.test, OU=One, OU=Two',
        dnsNames: ['a.test', 'evil.test, DNS:good.test', 'q"uote.test'],
        ipAddresses: ['::1', '2001:db8::1', '192.0.2.7'],
        keyType: 'ecdsa',
      }),
    ]);
  });

  describe('signatureAlgorithmOf', () => {
    it('names RSA, ECDSA and Ed25519 signatures as OpenSSL does', () => {
      expect(signatureAlgorithmOf(rsa.der)).to.equal('sha256WithRSAEncryption');
      expect(signatureAlgorithmOf(ecdsa.der)).to.equal('ecdsa-with-SHA256');
      expect(signatureAlgorithmOf(ed25519.der)).to.equal('ED25519');
    });

    it('gives an unnamed algorithm as its dotted object identifier', () => {
      // Certificate ::= SEQUENCE { tbs SEQUENCE {}, AlgorithmIdentifier { 1.2.3.4 } }
      expect(signatureAlgorithmOf(Buffer.from('30093000300506032a0304', 'hex'))).to.equal('1.2.3.4');
      // The same with an object identifier whose last arc never ends.
      expect(signatureAlgorithmOf(Buffer.from('300a3000300606042a8648ce', 'hex'))).to.equal(null);
    });

    it('returns null, without throwing, for anything that is not a certificate', () => {
      for (const bytes of [
        Buffer.alloc(0),
        Buffer.from('30', 'hex'),
        Buffer.from('3085ffffffffff', 'hex'),
        Buffer.from('3003020101', 'hex'),
        rsa.der.subarray(0, rsa.der.length - 300),
        Buffer.from('not a certificate at all'),
      ]) {
        expect(signatureAlgorithmOf(bytes), bytes.toString('hex')).to.equal(null);
      }
    });
  });

  describe('describeCertificate', () => {
    it('reads an RSA certificate: names, dates in UTC, serial and fingerprint in upper-case hex, key size', () => {
      const fields = describeCertificate(new X509Certificate(rsa.der));
      expect(fields.subject).to.deep.equal({ CN: 'rsa.test' });
      expect(fields.issuer).to.deep.equal({ CN: 'rsa.test' });
      expect(fields.validFrom).to.equal('2026-01-01T00:00:00.000Z');
      expect(fields.validTo).to.equal('2026-03-01T12:00:00.000Z');
      expect(fields.subjectAltNames).to.deep.equal(['rsa.test']);
      expect(fields.serialNumber).to.equal('0AFF10');
      expect(fields.fingerprintSha256).to.equal(new X509Certificate(rsa.der).fingerprint256);
      expect(fields.publicKey).to.deep.equal({ type: 'RSA', bits: 2048, curve: null });
    });

    it('reads ECDSA and Ed25519 keys', () => {
      expect(describeCertificate(new X509Certificate(ecdsa.der)).publicKey).to.deep.equal({
        type: 'EC',
        bits: 256,
        curve: 'prime256v1',
      });
      expect(describeCertificate(new X509Certificate(ed25519.der)).publicKey).to.deep.equal({
        type: 'Ed25519',
        bits: 256,
        curve: null,
      });
    });

    it('keeps a repeated attribute as an array and a quoted name as one name, and canonicalizes IP addresses', () => {
      const fields = describeCertificate(new X509Certificate(oddNames.der));
      expect(fields.subject).to.deep.equal({ CN: 'odd.test', OU: ['One', 'Two'] });
      expect(fields.subjectAltNames).to.deep.equal([
        'a.test',
        'evil.test, DNS:good.test',
        'q"uote.test',
        '::1',
        '2001:db8::1',
        '192.0.2.7',
      ]);
    });
  });

  describe('subjectAltNames', () => {
    it('keeps DNS names and IP addresses only, and stops at malformed text', () => {
      expect(subjectAltNames(undefined)).to.deep.equal([]);
      expect(subjectAltNames('email:a@b.test, DNS:x.test, URI:https://y.test/, IP Address:10.0.0.1')).to.deep.equal([
        'x.test',
        '10.0.0.1',
      ]);
      expect(subjectAltNames('DNS:x.test, DNS:"unterminated')).to.deep.equal(['x.test']);
      expect(subjectAltNames('no colon here')).to.deep.equal([]);
    });
  });

  describe('distinguishedName', () => {
    it('copies strings and arrays of strings into a plain object, and nothing else', () => {
      const name = Object.assign(Object.create(null) as object, { CN: 'a', OU: ['b', 3, 'c'], X: 5 });
      const copy = distinguishedName(name);
      expect(copy).to.deep.equal({ CN: 'a', OU: ['b', 'c'] });
      expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
      expect(distinguishedName(undefined)).to.deep.equal({});
    });
  });

  describe('parseCertificateDate', () => {
    it('reads the dates X509Certificate prints, with a padded day', () => {
      expect(new Date(parseCertificateDate('Jan  1 00:00:00 2030 GMT')).toISOString()).to.equal('2030-01-01T00:00:00.000Z');
      expect(new Date(parseCertificateDate('Dec 31 23:59:59 9999 GMT')).toISOString()).to.equal('9999-12-31T23:59:59.000Z');
    });

    it('throws on anything else', () => {
      for (const text of ['', '2030-01-01', 'Foo 99 99:99:99 2030 GMT', 'Jan  1 00:00:00 2030']) {
        expect(() => parseCertificateDate(text), text).to.throw();
      }
    });
  });
});

describe('SSL lookup: the verdict and the cache time', () => {
  let leaf: TestCertificate;
  let intermediate: TestCertificate;
  const notBefore = Date.parse('2026-01-01T00:00:00Z');
  const notAfter = Date.parse('2026-03-01T00:00:00Z');

  before(async function () {
    this.timeout(30_000);
    const pki = await createTestPki();
    intermediate = pki.intermediate;
    leaf = await pki.issue({ dnsNames: ['leaf.test'], notBefore: new Date(notBefore), notAfter: new Date(notAfter) });
  });

  it('is valid when Node trusts the chain, the name matches and the date is inside the window', () => {
    const { data, ttlSeconds } = describeSession('leaf.test', handshakeOf([leaf, intermediate]), notBefore + DAY_MS);
    expect(data.isValid).to.equal(true);
    expect(data.authorizationError).to.equal(null);
    expect(data.hostnameMatches).to.equal(true);
    expect(data.daysRemaining).to.equal(58);
    expect(data.chain).to.have.length(2);
    expect(data.protocol).to.equal('TLSv1.3');
    expect(data.cipher).to.equal('TLS_AES_256_GCM_SHA384');
    expect(ttlSeconds).to.equal(SSL_CACHE_SECONDS);
  });

  it('gives every chain certificate its daysRemaining, and expiresFirst the one that ends first', () => {
    const now = notBefore + DAY_MS;
    const { data } = describeSession('leaf.test', handshakeOf([leaf, intermediate]), now);
    const intermediateEnd = Date.parse(data.chain[1]!.validTo);
    expect(data.chain.map((entry) => entry.daysRemaining)).to.deep.equal([58, Math.floor((intermediateEnd - now) / DAY_MS)]);
    // The default intermediate outlives this leaf: the leaf expires first.
    expect(intermediateEnd).to.be.greaterThan(notAfter);
    expect(data.expiresFirst).to.deep.equal({ subject: data.subject, validTo: data.validTo, daysRemaining: 58 });
  });

  it('names the leaf in expiresFirst when a chain certificate ends at the same time', () => {
    const { data } = describeSession('leaf.test', handshakeOf([leaf, leaf]), notBefore + DAY_MS);
    expect(data.expiresFirst.subject).to.deep.equal(data.chain[0]!.subject);
  });

  it('counts daysRemaining in whole days, negative once expired', () => {
    const at = (now: number): number => describeSession('leaf.test', handshakeOf([leaf]), now).data.daysRemaining;
    expect(at(notAfter - DAY_MS - 1)).to.equal(1);
    expect(at(notAfter - 1)).to.equal(0);
    expect(at(notAfter + 1)).to.equal(-1);
    expect(at(notAfter + 3 * DAY_MS)).to.equal(-3);
  });

  it('keeps Node’s code when the chain is not trusted', () => {
    const { data } = describeSession(
      'leaf.test',
      handshakeOf([leaf], { authorized: false, authorizationError: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' }),
      notBefore + DAY_MS,
    );
    expect(data.isValid).to.equal(false);
    expect(data.authorizationError).to.equal('UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
  });

  it('reports a name mismatch as ERR_TLS_CERT_ALTNAME_INVALID', () => {
    const { data } = describeSession('other.test', handshakeOf([leaf]), notBefore + DAY_MS);
    expect(data.hostnameMatches).to.equal(false);
    expect(data.isValid).to.equal(false);
    expect(data.authorizationError).to.equal('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('judges the date by Dossier’s clock too, naming the fault when Node saw none', () => {
    const early = describeSession('leaf.test', handshakeOf([leaf]), notBefore - 1000).data;
    expect([early.isValid, early.authorizationError]).to.deep.equal([false, 'CERT_NOT_YET_VALID']);
    const late = describeSession('leaf.test', handshakeOf([leaf]), notAfter + 1000).data;
    expect([late.isValid, late.authorizationError]).to.deep.equal([false, 'CERT_HAS_EXPIRED']);
  });

  it('caches for an hour at most, never past validTo, never before validFrom is reached, and not at all once expired', () => {
    const ttl = (now: number): number => describeSession('leaf.test', handshakeOf([leaf]), now).ttlSeconds;
    expect(ttl(notBefore + DAY_MS)).to.equal(3600);
    expect(ttl(notAfter - 600_000)).to.equal(600);
    expect(ttl(notAfter + 1000)).to.equal(0);
    expect(ttl(notBefore - 300_000)).to.equal(300);
  });
});

describe('SslLookup', () => {
  const SYSTEM_CLOCK = { now: (): number => Date.now() };
  const resolverOf = (): DnsResolver => ({}) as DnsResolver;

  it('parses the domain as every domain lookup does', () => {
    const lookup = new SslLookup(
      { createResolver: resolverOf, guard: new RangeTargetGuard(false), clock: SYSTEM_CLOCK },
      { port: 443 },
    );
    expect(lookup.parse('Example.COM.')).to.equal('example.com');
    expect(() => lookup.parse('127.0.0.1'))
      .to.throw()
      .that.satisfies((error: unknown) => isDossierError(error, 'ERR_LOOKUP_INVALID_DOMAIN'));
  });

  it('refuses extra CA certificates that are not PEM certificates', () => {
    for (const sslCaCertificates of [['not a certificate'], 'one string', [42]]) {
      expect(() => resolveOptions({ sslCaCertificates } as unknown as DossierOptions))
        .to.throw(/sslCaCertificates/)
        .that.satisfies((error: unknown) => isDossierError(error, 'ERR_CONFIG_INVALID'));
    }
  });

  it('stops before any I/O when the signal is already aborted', async () => {
    let asked = 0;
    const resolver = {
      resolve4: async () => ((asked += 1), []),
      resolve6: async () => ((asked += 1), []),
      cancel() {},
    } as unknown as DnsResolver;
    const lookup = new SslLookup(
      { createResolver: () => resolver, guard: new RangeTargetGuard(true), clock: SYSTEM_CLOCK },
      { port: 443 },
    );
    const controller = new AbortController();
    controller.abort();
    const error = await lookup.run('example.com', controller.signal).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isDossierError(error)).to.equal(true);
    expect(asked).to.equal(0);
  });
});
