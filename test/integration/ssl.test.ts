import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import type { DossierOptions } from '../../lib/options.js';
import { createSelfSigned, createTestPki, daysFromNow, type TestCertificate, type TestPki } from '../support/certificates.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { closedPort, startRawServer, startTlsServer, type TestPeer, type TestTlsPeer } from '../support/tls-server.js';

/** A record's TLS record header in front of `body`. */
function tlsRecord(type: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type, 3, 3, body.length >> 8, body.length & 255]), body]);
}

function fingerprint(certificate: TestCertificate): string {
  return new X509Certificate(certificate.der).fingerprint256;
}

eachAdapter(() => {
  describe('GET /api/ssl against TLS servers on loopback', function () {
    let pki: TestPki;
    let good: TestCertificate;
    let expired: TestCertificate;
    let wrongName: TestCertificate;
    let selfSigned: TestCertificate;
    let ecdsa: TestCertificate;
    let dns: TestDnsServer;
    const opened: { close(): Promise<void> }[] = [];

    before(async function () {
      this.timeout(60_000);
      pki = await createTestPki();
      [good, expired, wrongName, selfSigned, ecdsa] = await Promise.all([
        pki.issue({
          subject: 'CN=good.test, OU=Web, OU=Ops, O=Dossier Test, L=Berlin, ST=Berlin, C=DE',
          dnsNames: ['good.test', 'www.good.test'],
          ipAddresses: ['127.0.0.1'],
          serialNumber: '0a1b2c3d4e5f',
          notBefore: daysFromNow(-10),
          notAfter: daysFromNow(30.5),
        }),
        pki.issue({ dnsNames: ['expired.test'], notBefore: daysFromNow(-100), notAfter: daysFromNow(-9.5) }),
        pki.issue({ dnsNames: ['other.test'] }),
        createSelfSigned({ dnsNames: ['self.test'] }),
        pki.issue({ dnsNames: ['ec.test'], keyType: 'ecdsa' }),
      ]);
      dns = await startDnsServer({
        'good.test': { A: [{ address: '127.0.0.1' }] },
        'expired.test': { A: [{ address: '127.0.0.1' }] },
        'wrong.test': { A: [{ address: '127.0.0.1' }] },
        'self.test': { A: [{ address: '127.0.0.1' }] },
        'ec.test': { A: [{ address: '127.0.0.1' }] },
        'mapped.test': { AAAA: [{ address: '::ffff:7f00:1' }] },
        'metadata.test': { A: [{ address: '169.254.169.254' }] },
      });
    });

    after(async () => {
      await dns?.close();
    });

    afterEach(async () => {
      for (const resource of opened.splice(0).reverse()) await resource.close();
    });

    /** A TLS server that answers each test name with its own certificate. */
    async function tlsPeer(): Promise<TestTlsPeer> {
      const withIntermediate = (leaf: TestCertificate) => ({ key: leaf.keyPem, chain: [leaf.pem, pki.intermediate.pem] });
      const peer = await startTlsServer({
        ...withIntermediate(good),
        byServerName: {
          'good.test': withIntermediate(good),
          'expired.test': withIntermediate(expired),
          'wrong.test': withIntermediate(wrongName),
          'self.test': { key: selfSigned.keyPem, chain: [selfSigned.pem] },
          'ec.test': withIntermediate(ecdsa),
        },
      });
      opened.push(peer);
      return peer;
    }

    async function dossier(peer: TestPeer | number, options: DossierOptions = {}): Promise<{ server: TestServer; key: string }> {
      const server = await startTestServer({
        dnsServers: [dns.address],
        sslPort: typeof peer === 'number' ? peer : peer.port,
        allowPrivateTargets: true,
        lookupTimeoutMs: 3000,
        ...options,
      });
      opened.push(server);
      return { server, key: await server.key() };
    }

    /** Options that trust the test root, as a private PKI would be trusted. */
    function trustingTestRoot(): DossierOptions {
      return { sslCaCertificates: [pki.root.pem] };
    }

    async function ssl(server: TestServer, key: string, domain: string): Promise<{ status: number; body: Record<string, any> }> {
      const response = await server.get(`/api/ssl?domain=${encodeURIComponent(domain)}`, key);
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    }

    it('answers every field of a good RSA chain, is_valid true when its root is trusted', async () => {
      const peer = await tlsPeer();
      const { server, key } = await dossier(peer, trustingTestRoot());
      const { status, body } = await ssl(server, key, 'Good.Test');
      expect(status).to.equal(200);
      expect(body.status).to.equal('success');
      expect(body.cached).to.equal(false);
      const leaf = new X509Certificate(good.der);
      const data = body.data;
      expect(Object.keys(data)).to.deep.equal([
        'domain',
        'subject',
        'issuer',
        'valid_from',
        'valid_to',
        'days_remaining',
        'is_valid',
        'authorization_error',
        'hostname_matches',
        'subject_alt_names',
        'serial_number',
        'fingerprint_sha256',
        'signature_algorithm',
        'public_key',
        'protocol',
        'cipher',
        'chain',
        'expires_first',
      ]);
      expect(data.domain).to.equal('good.test');
      expect(data.subject).to.deep.equal({
        CN: 'good.test',
        OU: ['Web', 'Ops'],
        O: 'Dossier Test',
        L: 'Berlin',
        ST: 'Berlin',
        C: 'DE',
      });
      expect(data.issuer).to.deep.equal({ CN: 'Dossier Test Intermediate', O: 'Dossier Test', C: 'DE' });
      expect(data.valid_from).to.equal(new Date(leaf.validFrom).toISOString());
      expect(data.valid_to).to.equal(new Date(leaf.validTo).toISOString());
      expect(data.valid_to).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
      expect(data.days_remaining).to.equal(30);
      expect(data.is_valid).to.equal(true);
      expect(data.authorization_error).to.equal(null);
      expect(data.hostname_matches).to.equal(true);
      expect(data.subject_alt_names).to.deep.equal(['good.test', 'www.good.test', '127.0.0.1']);
      expect(data.serial_number).to.equal('0A1B2C3D4E5F');
      expect(data.fingerprint_sha256)
        .to.equal(fingerprint(good))
        .and.match(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      expect(data.signature_algorithm).to.equal('sha256WithRSAEncryption');
      expect(data.public_key).to.deep.equal({ type: 'RSA', bits: 2048, curve: null });
      expect(data.protocol).to.equal('TLSv1.3');
      expect(data.cipher).to.match(/^TLS_(AES_(128|256)_GCM|CHACHA20_POLY1305)_SHA(256|384)$/);
      expect(data.chain.map((entry: { subject: { CN: string } }) => entry.subject.CN)).to.deep.equal([
        'good.test',
        'Dossier Test Intermediate',
        'Dossier Test Root',
      ]);
      expect(data.chain.map((entry: { fingerprint_sha256: string }) => entry.fingerprint_sha256)).to.deep.equal([
        fingerprint(good),
        fingerprint(pki.intermediate),
        fingerprint(pki.root),
      ]);
      expect(data.chain[1]).to.deep.equal({
        subject: { CN: 'Dossier Test Intermediate', O: 'Dossier Test', C: 'DE' },
        issuer: { CN: 'Dossier Test Root', O: 'Dossier Test', C: 'DE' },
        valid_from: new Date(new X509Certificate(pki.intermediate.der).validFrom).toISOString(),
        valid_to: new Date(new X509Certificate(pki.intermediate.der).validTo).toISOString(),
        fingerprint_sha256: fingerprint(pki.intermediate),
        days_remaining: 89,
      });
      expect(data.chain[0].days_remaining).to.equal(30);
      expect(data.expires_first).to.deep.equal({ subject: data.subject, valid_to: data.valid_to, days_remaining: 30 });
      expect(peer.serverNames).to.deep.equal(['good.test']);
    });

    it('reports a good chain whose root is not trusted as not valid, with the chain the peer sent', async () => {
      const { server, key } = await dossier(await tlsPeer());
      const { status, body } = await ssl(server, key, 'good.test');
      expect(status).to.equal(200);
      expect(body.data.is_valid).to.equal(false);
      expect(body.data.hostname_matches).to.equal(true);
      expect(body.data.authorization_error).to.equal('UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
      expect(body.data.chain.map((entry: { fingerprint_sha256: string }) => entry.fingerprint_sha256)).to.deep.equal([
        fingerprint(good),
        fingerprint(pki.intermediate),
      ]);
    });

    it('reports an expired leaf: negative days_remaining, CERT_HAS_EXPIRED, not valid', async () => {
      const { server, key } = await dossier(await tlsPeer(), trustingTestRoot());
      const { status, body } = await ssl(server, key, 'expired.test');
      expect(status).to.equal(200);
      expect(body.data.subject).to.deep.equal({ CN: 'expired.test' });
      expect(body.data.days_remaining).to.equal(-10);
      expect(body.data.is_valid).to.equal(false);
      expect(body.data.authorization_error).to.equal('CERT_HAS_EXPIRED');
      expect(body.data.hostname_matches).to.equal(true);
    });

    it('reports a certificate for another name: hostname_matches false, ERR_TLS_CERT_ALTNAME_INVALID', async () => {
      const { server, key } = await dossier(await tlsPeer(), trustingTestRoot());
      const { status, body } = await ssl(server, key, 'wrong.test');
      expect(status).to.equal(200);
      expect(body.data.domain).to.equal('wrong.test');
      expect(body.data.subject_alt_names).to.deep.equal(['other.test']);
      expect(body.data.hostname_matches).to.equal(false);
      expect(body.data.is_valid).to.equal(false);
      expect(body.data.authorization_error).to.equal('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('reports a self-signed leaf: one certificate, subject equals issuer, DEPTH_ZERO_SELF_SIGNED_CERT', async () => {
      const { server, key } = await dossier(await tlsPeer(), trustingTestRoot());
      const { status, body } = await ssl(server, key, 'self.test');
      expect(status).to.equal(200);
      expect(body.data.subject).to.deep.equal({ CN: 'self.test' });
      expect(body.data.issuer).to.deep.equal({ CN: 'self.test' });
      expect(body.data.chain).to.have.length(1);
      expect(body.data.chain[0].fingerprint_sha256).to.equal(fingerprint(selfSigned));
      expect(body.data.hostname_matches).to.equal(true);
      expect(body.data.is_valid).to.equal(false);
      expect(body.data.authorization_error).to.equal('DEPTH_ZERO_SELF_SIGNED_CERT');
    });

    it('reads an ECDSA leaf: EC key of 256 bits on prime256v1, valid under the trusted root', async () => {
      const { server, key } = await dossier(await tlsPeer(), trustingTestRoot());
      const { status, body } = await ssl(server, key, 'ec.test');
      expect(status).to.equal(200);
      expect(body.data.public_key).to.deep.equal({ type: 'EC', bits: 256, curve: 'prime256v1' });
      expect(body.data.signature_algorithm).to.equal('sha256WithRSAEncryption');
      expect(body.data.fingerprint_sha256).to.equal(fingerprint(ecdsa));
      expect(body.data.is_valid).to.equal(true);
      expect(body.data.cipher).to.be.a('string');
    });

    it('serves a second lookup from the cache without a new handshake', async () => {
      const peer = await tlsPeer();
      const { server, key } = await dossier(peer, trustingTestRoot());
      await ssl(server, key, 'good.test');
      const accepted = peer.accepted;
      const { body } = await ssl(server, key, 'good.test');
      expect(body.cached).to.equal(true);
      expect(body.data.fingerprint_sha256).to.equal(fingerprint(good));
      expect(peer.accepted).to.equal(accepted);
    });

    it('answers 504 upstream_timeout within the deadline when the peer accepts and stays silent, and closes the socket', async () => {
      const silent = await startRawServer();
      opened.push(silent);
      const { server, key } = await dossier(silent, { lookupTimeoutMs: 500 });
      const { status, body } = await ssl(server, key, 'good.test');
      expect(status).to.equal(504);
      expect(body.code).to.equal('upstream_timeout');
      expect(silent.accepted).to.equal(1);
      await silent.drained(2000);
    });

    it('answers 502 upstream_error when the port refuses the connection', async () => {
      const { server, key } = await dossier(await closedPort());
      const { status, body } = await ssl(server, key, 'good.test');
      expect(status).to.equal(502);
      expect(body.code).to.equal('upstream_error');
    });

    it('answers 502 upstream_error when the peer does not speak TLS', async () => {
      const http = await startRawServer((socket) => {
        socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
      });
      opened.push(http);
      const { server, key } = await dossier(http);
      const { status, body } = await ssl(server, key, 'good.test');
      expect(status).to.equal(502);
      expect(body.code).to.equal('upstream_error');
      await http.drained(2000);
    });

    it('answers 502, not a timeout, when the peer sends an endless handshake, and closes the socket', async () => {
      let written = 0;
      const endless = await startRawServer((socket) => {
        socket.once('data', () => {
          // A ServerHello that claims 16 MiB, then record after record of filler.
          socket.write(tlsRecord(0x16, Buffer.concat([Buffer.from([2, 0xff, 0xff, 0xff]), Buffer.alloc(16_000, 1)])));
          const filler = tlsRecord(0x16, Buffer.alloc(16_384, 1));
          const pump = (): void => {
            while (!socket.destroyed && written < 256 * 1024 * 1024 && socket.write(filler)) written += filler.length;
            if (!socket.destroyed) socket.once('drain', pump);
          };
          pump();
        });
      });
      opened.push(endless);
      const { server, key } = await dossier(endless, { lookupTimeoutMs: 10_000 });
      const { status, body } = await ssl(server, key, 'good.test');
      expect(status).to.equal(502);
      expect(body.code).to.equal('upstream_error');
      await endless.drained(2000);
      expect(written).to.be.below(64 * 1024 * 1024);
    });

    it('refuses a domain that resolves to 127.0.0.1 with 400 target_not_allowed, without a connection or a counted request', async () => {
      const peer = await tlsPeer();
      const { server, key } = await dossier(peer, { allowPrivateTargets: false });
      const response = await server.get('/api/ssl?domain=good.test', key);
      expect(response.status).to.equal(400);
      expect(((await response.json()) as { code: string }).code).to.equal('target_not_allowed');
      expect(response.headers.get('X-RateLimit-Limit')).to.equal('1000');
      expect(response.headers.get('X-RateLimit-Remaining')).to.equal('1000');
      expect(peer.accepted).to.equal(0);
      const counted = await server.get('/api/ssl?domain=nothing.test', key);
      expect(counted.status).to.equal(502);
      expect(counted.headers.get('X-RateLimit-Remaining')).to.equal('999');
    });

    for (const [domain, address] of [
      ['mapped.test', '::ffff:127.0.0.1'],
      ['metadata.test', '169.254.169.254'],
    ]) {
      it(`refuses a domain that resolves to ${address} with 400 target_not_allowed`, async () => {
        const peer = await tlsPeer();
        const { server, key } = await dossier(peer, { allowPrivateTargets: false });
        const response = await server.get(`/api/ssl?domain=${domain}`, key);
        expect(response.status).to.equal(400);
        expect(((await response.json()) as { code: string }).code).to.equal('target_not_allowed');
        expect(response.headers.get('X-RateLimit-Remaining')).to.equal('1000');
        expect(peer.accepted).to.equal(0);
      });
    }

    it('answers 400 invalid_domain for an IP address, a URL or a port, without any connection', async () => {
      const peer = await tlsPeer();
      const { server, key } = await dossier(peer);
      for (const domain of ['127.0.0.1', 'https://good.test/', 'good.test:443', '']) {
        const { status, body } = await ssl(server, key, domain);
        expect(status, domain).to.equal(400);
        expect(body.code, domain).to.equal('invalid_domain');
      }
      expect(peer.accepted).to.equal(0);
    });
  });

  describe('GET /api/ssl: expiry across the whole chain', function () {
    const DAY_MS = 86_400_000;
    let pki: TestPki;
    let leaf: TestCertificate;
    let dns: TestDnsServer;
    let peer: TestTlsPeer;
    const opened: { close(): Promise<void> }[] = [];

    before(async function () {
      this.timeout(60_000);
      // An intermediate that expires 40 days before the leaf it signed: the leaf alone would hide it.
      pki = await createTestPki({ root: { notAfter: daysFromNow(365.5) }, intermediate: { notAfter: daysFromNow(20.5) } });
      leaf = await pki.issue({ dnsNames: ['soon.test'], notAfter: daysFromNow(60.5) });
      dns = await startDnsServer({ 'soon.test': { A: [{ address: '127.0.0.1' }] } });
      peer = await startTlsServer({ key: leaf.keyPem, chain: [leaf.pem, pki.intermediate.pem] });
    });

    after(async () => {
      await Promise.all([dns?.close(), peer?.close()]);
    });

    afterEach(async () => {
      for (const resource of opened.splice(0)) await resource.close();
    });

    async function lookUp(options: DossierOptions = {}): Promise<Record<string, any>> {
      const server = await startTestServer({
        dnsServers: [dns.address],
        sslPort: peer.port,
        allowPrivateTargets: true,
        sslCaCertificates: [pki.root.pem],
        lookupTimeoutMs: 3000,
        ...options,
      });
      opened.push(server);
      const response = await server.get('/api/ssl?domain=soon.test', await server.key());
      expect(response.status).to.equal(200);
      return ((await response.json()) as { data: Record<string, any> }).data;
    }

    it('gives days_remaining on every certificate of the chain, and names the intermediate in expires_first', async () => {
      const data = await lookUp();
      expect(data.chain.map((entry: { subject: { CN: string } }) => entry.subject.CN)).to.deep.equal([
        'soon.test',
        'Dossier Test Intermediate',
        'Dossier Test Root',
      ]);
      expect(data.chain.map((entry: { days_remaining: number }) => entry.days_remaining)).to.deep.equal([60, 20, 365]);
      expect(data.days_remaining).to.equal(60);
      expect(data.expires_first).to.deep.equal({
        subject: { CN: 'Dossier Test Intermediate', O: 'Dossier Test', C: 'DE' },
        valid_to: new Date(new X509Certificate(pki.intermediate.der).validTo).toISOString(),
        days_remaining: 20,
      });
      expect(data.expires_first.valid_to).to.equal(data.chain[1].valid_to);
      // Node trusts the chain: the intermediate's nearer end does not make it invalid today.
      expect(data.is_valid).to.equal(true);
    });

    it("counts the days by Dossier's clock", async () => {
      const data = await lookUp({ clock: { now: () => Date.now() + 10 * DAY_MS } });
      expect(data.chain.map((entry: { days_remaining: number }) => entry.days_remaining)).to.deep.equal([50, 10, 355]);
      expect(data.expires_first.days_remaining).to.equal(10);
      expect(data.days_remaining).to.equal(50);
    });
  });
});
