import { expect } from 'chai';
import { Reader } from 'maxmind';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isDossierError } from '../../../../lib/errors.js';
import { GEOIP_RETRY_AFTER_MS, GeoipDatabase, openGeoipReader } from '../../../../lib/lookup/ip/geoip.js';
import { IpLookup } from '../../../../lib/lookup/ip/ip-lookup.js';
import { resolveOptions } from '../../../../lib/options.js';
import { verifyMmdb } from '../../../../lib/lookup/ip/mmdb-verifier.js';
import type { Logger } from '../../../../lib/ports/logger.js';
import { GEOIP_FIXTURES, MmdbTyped, writeMmdb, type MmdbNetwork } from '../../../support/mmdb-writer.js';
import { MAXMIND_TEST_DATA } from '../../../support/paths.js';

const layoutOf = (db: Buffer): { nodeCount: number; recordSize: number } => {
  const { nodeCount, recordSize } = new Reader(db).metadata;
  return { nodeCount, recordSize };
};

/** The error a promise rejects with (fails the test if it fulfils). */
const rejection = async (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as Error,
  );

describe('verifyMmdb', () => {
  it('accepts what the writer writes, with every record size', async () => {
    for (const recordSize of [24, 28, 32] as const) {
      const db = writeMmdb(GEOIP_FIXTURES.city, { databaseType: 'GeoIP2-City', recordSize });
      await verifyMmdb(db, layoutOf(db));
      await verifyMmdb(db, layoutOf(db), { chunkBytes: 1 });
    }
  });

  it('refuses a double that is not 8 bytes long', async () => {
    const db = writeMmdb([{ network: '1.0.0.0/24', data: { latitude: new MmdbTyped('double', 51.5) } }], { databaseType: 'X' });
    const at = db.indexOf(Buffer.from([0x68, ...new Uint8Array(new Float64Array([51.5]).buffer).reverse()]));
    expect(at).to.be.above(0);
    db[at] = 0x64;
    expect((await rejection(verifyMmdb(db, layoutOf(db)))).message).to.match(/double of 4 bytes/);
  });

  it('refuses a tree record that points past the data section', async () => {
    const db = writeMmdb([{ network: '1.0.0.0/24', data: 'x' }], { databaseType: 'X', ipVersion: 4 });
    db.writeUIntBE(0xfffff0, 0, 3);
    expect((await rejection(verifyMmdb(db, layoutOf(db)))).message).to.match(/points past the data section/);
  });

  it('refuses a value that runs past the end of the data section', async () => {
    const db = writeMmdb([{ network: '1.0.0.0/24', data: 'abc' }], { databaseType: 'X', ipVersion: 4 });
    const at = db.indexOf(Buffer.from([0x43, 0x61, 0x62, 0x63]));
    db[at] = 0x5c;
    expect((await rejection(verifyMmdb(db, layoutOf(db)))).message).to.match(/runs past/);
  });

  describe('with a large file', () => {
    let db: Buffer;

    before(function () {
      this.timeout(20_000);
      const networks: MmdbNetwork[] = [];
      for (let i = 0; i < 6000; i++) {
        networks.push({ network: `1.${i >> 8}.${i & 255}.0/24`, data: { city: { names: { en: `City ${i}` } }, n: i } });
      }
      db = writeMmdb(networks, { databaseType: 'GeoIP2-City' });
    });

    /** How many turns of the event loop pass while `task` runs. */
    const turnsDuring = async (task: () => Promise<unknown>): Promise<number> => {
      let turns = 0;
      let done = false;
      const spin = (): void => {
        if (done) return;
        turns += 1;
        setImmediate(spin);
      };
      setImmediate(spin);
      await task();
      done = true;
      return turns;
    };

    it('lets work queued after the check started finish before the check does', async () => {
      const order: string[] = [];
      const check = verifyMmdb(db, layoutOf(db)).then(() => order.push('verified'));
      const cheap = new Promise((resolve) => setImmediate(resolve)).then(() => order.push('cheap'));
      await Promise.all([check, cheap]);
      expect(order).to.deep.equal(['cheap', 'verified']);
    });

    it('gives the event loop a turn after every chunk it checks', async () => {
      expect(db.length).to.be.above(2 * 64 * 1024);
      expect(await turnsDuring(() => verifyMmdb(db, layoutOf(db)))).to.be.at.least(2);
      const small = await turnsDuring(() => verifyMmdb(db, layoutOf(db), { chunkBytes: 4096 }));
      expect(small).to.be.at.least(Math.floor(db.length / 4096 / 2));
    });
  });

  it('refuses a file without the metadata marker', async () => {
    expect((await rejection(verifyMmdb(Buffer.alloc(100), { nodeCount: 1, recordSize: 24 }))).message).to.match(/marker/);
  });
});

describe('GeoipDatabase', () => {
  let dir: string;
  const errors: Record<string, unknown>[] = [];
  const logger: Logger = { info() {}, warn() {}, error: (_message, fields) => errors.push(fields ?? {}) };
  let now = 0;
  const clock = { now: () => now };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dossier-geoip-'));
    errors.length = 0;
    now = 1_000_000;
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const database = (path: string): GeoipDatabase =>
    new GeoipDatabase({ path, label: 'City', setting: 'DOSSIER_GEOIP_CITY', logger, clock });

  it('opens once and shares the reader', async () => {
    const path = join(dir, 'city.mmdb');
    await writeFile(path, writeMmdb(GEOIP_FIXTURES.city, { databaseType: 'GeoIP2-City' }));
    const db = database(path);
    const [a, b] = await Promise.all([db.reader(), db.reader()]);
    expect(a).to.equal(b);
    expect(a.databaseType).to.equal('GeoIP2-City');
    expect(a.find('81.2.69.1')?.prefixLength).to.equal(24);
    expect(a.find('9.9.9.9')).to.equal(null);
  });

  it('finds nothing for an IPv6 address in an IPv4-only tree', async () => {
    const path = join(dir, 'v4.mmdb');
    await writeFile(path, writeMmdb([{ network: '0.0.0.0/1', data: 'low' }], { databaseType: 'V4', ipVersion: 4 }));
    const reader = await openGeoipReader(path);
    expect(reader.find('1.2.3.4')?.record).to.equal('low');
    expect(reader.find('::1')).to.equal(null);
  });

  it('answers ERR_UPSTREAM_FAILED without the path for a missing file, and logs the path and setting', async () => {
    const path = join(dir, 'nothing-here.mmdb');
    const error = await database(path)
      .reader()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isDossierError(error, 'ERR_UPSTREAM_FAILED')).to.equal(true);
    expect((error as Error).message).not.to.include(dir);
    expect(errors[0]).to.include({ setting: 'DOSSIER_GEOIP_CITY', path });
  });

  for (const [name, bytes] of [
    ['an empty file', Buffer.alloc(0)],
    ['random bytes', Buffer.from('this is not a MaxMind database at all, just text'.repeat(20))],
    ['a gzip-compressed database', gzipSync(writeMmdb(GEOIP_FIXTURES.asn, { databaseType: 'GeoLite2-ASN' }))],
    ['a truncated database', writeMmdb(GEOIP_FIXTURES.city, { databaseType: 'GeoIP2-City' }).subarray(0, 300)],
  ] as const) {
    it(`answers ERR_UPSTREAM_FAILED for ${name}`, async () => {
      const path = join(dir, 'bad.mmdb');
      await writeFile(path, bytes);
      const error = await database(path)
        .reader()
        .catch((e: unknown) => e);
      expect(isDossierError(error, 'ERR_UPSTREAM_FAILED'), String(error)).to.equal(true);
    });
  }

  it(`remembers a failure for ${GEOIP_RETRY_AFTER_MS} ms, then opens the repaired file`, async () => {
    const path = join(dir, 'later.mmdb');
    const db = database(path);
    await db.reader().catch(() => undefined);
    await writeFile(path, writeMmdb(GEOIP_FIXTURES.asn, { databaseType: 'GeoLite2-ASN' }));
    now += GEOIP_RETRY_AFTER_MS - 1;
    expect(await db.reader().catch(() => 'failed')).to.equal('failed');
    expect(errors).to.have.length(1);
    now += 1;
    expect((await db.reader()).databaseType).to.equal('GeoLite2-ASN');
  });

  it("refuses MaxMind's own broken test database", async () => {
    const path = join(MAXMIND_TEST_DATA, 'GeoIP2-City-Test-Broken-Double-Format.mmdb');
    const bytes = await readFile(path);
    const copy = join(dir, 'broken.mmdb');
    await writeFile(copy, bytes);
    const error = await database(copy)
      .reader()
      .catch((e: unknown) => e);
    expect(isDossierError(error, 'ERR_UPSTREAM_FAILED')).to.equal(true);
    expect(String((error as Error).cause)).to.match(/double of \d bytes/);
  });
});

describe('IpLookup databases', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dossier-iplookup-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('starts opening them when constructed, and keeps a failure for the first lookup without an unhandled rejection', async () => {
    const path = join(dir, 'damaged.mmdb');
    await writeFile(path, writeMmdb(GEOIP_FIXTURES.city, { databaseType: 'GeoIP2-City' }).subarray(0, 300));
    const logged: Record<string, unknown>[] = [];
    let reported: () => void = () => undefined;
    const firstReport = new Promise<void>((resolve) => (reported = resolve));
    const logger: Logger = {
      info() {},
      warn() {},
      error(_message, fields) {
        logged.push(fields ?? {});
        reported();
      },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): number => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const options = resolveOptions({ store: 'memory://', geoipCity: path, logger });
      const createResolver = (): never => {
        throw new Error('a private address needs no resolver');
      };
      const lookup = new IpLookup({ ...options, createResolver }, { timeoutMs: options.lookupTimeoutMs, geoipCity: path });
      // No lookup has been asked for: only the constructor can have started the opening.
      await firstReport;
      expect(logged[0]).to.include({ setting: 'DOSSIER_GEOIP_CITY', path });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).to.deep.equal([]);
      const error = await rejection(lookup.run('10.0.0.1', new AbortController().signal));
      expect(isDossierError(error, 'ERR_UPSTREAM_FAILED'), String(error)).to.equal(true);
      expect(logged).to.have.length(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('answers from a database opened in the background', async () => {
    const path = join(dir, 'city.mmdb');
    await writeFile(path, writeMmdb(GEOIP_FIXTURES.city, { databaseType: 'GeoIP2-City' }));
    const options = resolveOptions({ store: 'memory://', geoipCity: path });
    const lookup = new IpLookup(
      { ...options, createResolver: () => expect.fail('no resolver') },
      { timeoutMs: 1000, geoipCity: path },
    );
    const [first, second] = await Promise.all([
      lookup.run('10.0.0.1', new AbortController().signal),
      lookup.run('192.168.1.1', new AbortController().signal),
    ]);
    expect(first.data).to.include({ isPrivate: true, network: '10.0.0.0/8' });
    expect(second.data).to.include({ isPrivate: true, network: '192.168.0.0/16' });
  });
});
