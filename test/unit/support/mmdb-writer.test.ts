import { expect } from 'chai';
import maxmind, { Reader, type Response } from 'maxmind';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GEOIP_FIXTURES,
  MmdbTyped,
  writeGeoipFixtures,
  writeMmdb,
  type GeoipFixturePaths,
  type MmdbNetwork,
} from '../../support/mmdb-writer.js';

const read = (db: Buffer): Reader<Response> => new Reader<Response>(db);

describe('writeMmdb, read back by the maxmind package', () => {
  let fixtures: GeoipFixturePaths;

  before(async () => {
    fixtures = await writeGeoipFixtures();
  });

  after(async () => {
    await rm(fixtures.dir, { recursive: true, force: true });
  });

  it('writes City and ASN files that maxmind.open reads, with their metadata', async () => {
    const city = await maxmind.open(fixtures.city);
    expect(city.metadata).to.include({ databaseType: 'GeoIP2-City', ipVersion: 6, recordSize: 24 });
    expect(city.metadata.binaryFormatMajorVersion).to.equal(2);
    expect(city.metadata.binaryFormatMinorVersion).to.equal(0);
    expect(city.metadata.languages).to.deep.equal(['de', 'en']);
    expect(city.metadata.description).to.deep.equal({ en: 'Dossier test database' });
    expect(city.metadata.buildEpoch.toISOString()).to.equal('2023-11-14T22:13:20.000Z');
    const asn = await maxmind.open(fixtures.asn);
    expect(asn.metadata.databaseType).to.equal('GeoLite2-ASN');
  });

  it('finds IPv4 networks stored at ::/96 of an IPv6 tree, by IPv4 address, with their prefix length', async () => {
    const city = await maxmind.open(fixtures.city);
    const [record, prefix] = city.getWithPrefixLength('81.2.69.142');
    expect(prefix).to.equal(24);
    expect(record).to.deep.include({ postal: { code: 'EC1A' } });
    expect(record).to.have.nested.property('city.names.en', 'London');
    expect(record).to.have.nested.property('city.names.de', 'London (de)');
    expect(record).to.have.nested.property('location.latitude', 51.5142);
    expect(record).to.have.nested.property('location.longitude', -0.0931);
    expect(record).to.have.nested.property('subdivisions[0].iso_code', 'ENG');
    expect(city.getWithPrefixLength('::81.2.69.142')[1]).to.equal(120);
  });

  it('finds IPv6 networks, and nothing outside every network', async () => {
    const asn = await maxmind.open(fixtures.asn);
    expect(asn.getWithPrefixLength('2a02:cf40:1::7')).to.deep.equal([
      { autonomous_system_number: 198411, autonomous_system_organization: 'Nordic Test Net AS' },
      32,
    ]);
    expect(asn.get('1.150.3.4')).to.deep.equal(GEOIP_FIXTURES.asn[2]!.data);
    expect(asn.get('9.9.9.9')).to.equal(null);
    expect(asn.get('2001:4860::1')).to.equal(null);
  });

  it('lets a longer prefix inside a shorter one win, and keeps the shorter one around it', () => {
    const reader = read(
      writeMmdb(
        [
          { network: '10.1.0.0/16', data: 'inner' },
          { network: '10.0.0.0/8', data: 'outer' },
        ],
        { databaseType: 'Test', ipVersion: 4 },
      ),
    );
    expect(reader.metadata.ipVersion).to.equal(4);
    expect(reader.getWithPrefixLength('10.1.2.3')).to.deep.equal(['inner', 16]);
    // The record's network is the largest block of the tree around the address: 10.0.0.0/8 less 10.1.0.0/16.
    expect(reader.getWithPrefixLength('10.2.0.1')).to.deep.equal(['outer', 15]);
    expect(reader.getWithPrefixLength('10.128.0.1')).to.deep.equal(['outer', 9]);
    expect(reader.get('11.0.0.1')).to.equal(null);
  });

  it('round-trips every data type', () => {
    const long = 'é'.repeat(200);
    const huge = 'x'.repeat(70_000);
    const value = {
      text: 'Zürich 東京',
      long,
      huge,
      double: new MmdbTyped('double', -33.8591),
      float: new MmdbTyped('float', 1.5),
      uint16: new MmdbTyped('uint16', 65535),
      uint32: 4_294_967_295,
      uint64: 2n ** 63n + 5n,
      uint128: new MmdbTyped('uint128', 2n ** 127n + 1n),
      int32: -42,
      zero: 0,
      yes: true,
      no: false,
      bytes: Buffer.from([1, 2, 3]),
      list: ['a', 1, { nested: ['b'] }],
      empty: {},
    };
    const reader = read(writeMmdb([{ network: '2001:db8::/32', data: value }], { databaseType: 'Types' }));
    const record = reader.get('2001:db8::1') as Record<string, unknown>;
    expect(record).to.deep.equal({ ...value, double: -33.8591, float: 1.5, uint16: 65535, uint128: 2n ** 127n + 1n });
  });

  for (const recordSize of [24, 28, 32] as const) {
    it(`writes ${recordSize}-bit records`, () => {
      const reader = read(writeMmdb(GEOIP_FIXTURES.asn, { databaseType: 'GeoLite2-ASN', recordSize }));
      expect(reader.metadata.recordSize).to.equal(recordSize);
      expect(reader.get('81.2.68.1')).to.deep.equal(GEOIP_FIXTURES.asn[0]!.data);
      expect(reader.get('2a02:cf40::1')).to.deep.equal(GEOIP_FIXTURES.asn[1]!.data);
    });
  }

  it('addresses data past 16 MiB with 28-bit records and long pointers', () => {
    const big = Buffer.alloc(9 * 2 ** 20, 7);
    const networks: MmdbNetwork[] = [
      { network: '1.0.0.0/24', data: { blob: big, other: Buffer.alloc(9 * 2 ** 20, 8), name: 'first' } },
      { network: '1.0.1.0/24', data: { name: 'second', shared: 'first' } },
    ];
    const db = writeMmdb(networks, { databaseType: 'Big' });
    const reader = read(db);
    expect(reader.metadata.recordSize).to.equal(28);
    expect(reader.get('1.0.1.1')).to.deep.equal({ name: 'second', shared: 'first' });
    expect((reader.get('1.0.0.1') as { blob: Buffer }).blob.length).to.equal(big.length);
    // The second record reuses the strings of the first through pointers, so it is only a few bytes long.
    expect(db.length).to.be.below(2 * big.length + 2000);
  });

  it('refuses a value larger than the format can express', () => {
    expect(() => writeMmdb([{ network: '1.0.0.0/24', data: Buffer.alloc(16_843_037) }], { databaseType: 'X' })).to.throw(
      /larger/,
    );
  });

  it('writes repeated values once and points to them', () => {
    const record = { country: { iso_code: 'GB', names: { en: 'United Kingdom' } } };
    const networks = Array.from({ length: 50 }, (_, i) => ({ network: `10.0.${i}.0/24`, data: { ...record, n: i } }));
    const withPointers = writeMmdb(networks, { databaseType: 'P' });
    const without = writeMmdb(networks, { databaseType: 'P', pointers: false });
    expect(withPointers.length).to.be.below(without.length / 2);
    expect(read(withPointers).get('10.0.42.1')).to.deep.equal({ ...record, n: 42 });
    expect(read(without).get('10.0.42.1')).to.deep.equal({ ...record, n: 42 });
  });

  it('is read by maxmind.open from a file', async () => {
    const path = join(fixtures.dir, 'v4.mmdb');
    await writeFile(path, writeMmdb([{ network: '8.8.8.0/24', data: { ok: true } }], { databaseType: 'V4', ipVersion: 4 }));
    expect((await maxmind.open(path)).get('8.8.8.8')).to.deep.equal({ ok: true });
  });
});
