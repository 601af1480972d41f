import { expect } from 'chai';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createDossier } from '../../lib/dossier.js';
import { DossierError } from '../../lib/errors.js';
import type { Telemetry } from '../../lib/ports/telemetry.js';
import { startDnsServer } from '../support/dns-server.js';
import { writeGeoipFixtures, type GeoipFixturePaths } from '../support/mmdb-writer.js';

async function rejection(promise: Promise<unknown>): Promise<DossierError> {
  try {
    await promise;
  } catch (error) {
    return error as DossierError;
  }
  throw new Error('expected a rejection');
}

describe('dossier.ready(), probe() and observe()', () => {
  let fixtures: GeoipFixturePaths;

  before(async () => {
    fixtures = await writeGeoipFixtures();
  });
  after(() => {
    rmSync(fixtures.dir, { recursive: true, force: true });
  });

  it('resolves once the store, the cache and the GeoIP files are open and of their kind', async () => {
    const dossier = createDossier({ store: 'memory://', geoipCity: fixtures.city, geoipAsn: fixtures.asn });
    try {
      await dossier.ready();
      expect(await dossier.probe(500)).to.deep.equal({ store: true, cache: true });
    } finally {
      await dossier.close();
    }
  });

  it('refuses a GeoIP file that is not a database of its kind, naming the variable and the path', async () => {
    const notMmdb = join(fixtures.dir, 'not.mmdb');
    writeFileSync(notMmdb, 'plain text\n');
    for (const [options, variable, path] of [
      [{ geoipCity: fixtures.asn }, 'DOSSIER_GEOIP_CITY', fixtures.asn],
      [{ geoipAsn: fixtures.city }, 'DOSSIER_GEOIP_ASN', fixtures.city],
      [{ geoipCity: notMmdb }, 'DOSSIER_GEOIP_CITY', notMmdb],
    ] as const) {
      const dossier = createDossier({ store: 'memory://', ...options });
      try {
        const error = await rejection(dossier.ready());
        expect(error).to.be.instanceOf(DossierError);
        expect(error.code).to.equal('ERR_CONFIG_INVALID');
        expect(error.message).to.include(variable).and.include(path);
      } finally {
        await dossier.close();
      }
    }
  });

  it('refuses a store that does not answer, and probe() says which one', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const dossier = createDossier({ store: 'memory://', cache: `redis://127.0.0.1:${port}` });
    try {
      const error = await rejection(dossier.ready(500));
      expect(error.code).to.equal('ERR_STORE_UNAVAILABLE');
      expect(error.message).to.include('cache');
      expect(await dossier.probe(500)).to.deep.equal({ store: true, cache: false });
    } finally {
      await dossier.close();
    }
  });

  it('reports what the core measures to the observers attached, and stops when one is detached', async () => {
    const dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    const seen: string[] = [];
    const observer: Telemetry = {
      lookup: (kind, cached, outcome) => seen.push(`lookup ${kind} ${cached} ${outcome}`),
      upstream: (kind) => seen.push(`upstream ${kind}`),
      quotaRejected: () => seen.push('quota'),
      storeError: () => seen.push('store'),
      generation: (_seconds, ok) => seen.push(`generation ${ok}`),
    };
    const fromOptions: string[] = [];
    const dossier = createDossier({
      store: 'memory://',
      dnsServers: [dns.address],
      telemetry: {
        lookup: (kind) => fromOptions.push(kind),
        upstream: () => {},
        quotaRejected: () => {},
        storeError: () => {},
        generation: () => {},
      },
    });
    try {
      const detach = dossier.observe(observer);
      await dossier.lookups.lookup('dns', 'example.test');
      await dossier.lookups.lookup('dns', 'example.test');
      expect((await dossier.quotas.consume('k', 1, 'dns')).allowed).to.equal(true);
      expect((await dossier.quotas.consume('k', 1, 'dns')).allowed).to.equal(false);
      await dossier.documents.create('o', { name: 'n', prompt: 'p' });
      await rejection(dossier.lookups.lookup('dns', 'bad..name'));
      expect(seen).to.deep.equal([
        'upstream dns',
        'lookup dns false success',
        'lookup dns true success',
        'quota',
        'generation true',
        'lookup dns false lookup_invalid_domain',
      ]);
      expect(fromOptions).to.deep.equal(['dns', 'dns', 'dns']);
      detach();
      await dossier.lookups.lookup('dns', 'example.test');
      expect(seen).to.have.length(6);
      expect(fromOptions).to.deep.equal(['dns', 'dns', 'dns', 'dns']);
    } finally {
      await dossier.close();
      await dns.close();
    }
  });
});
