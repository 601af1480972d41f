import { expect } from 'chai';
import { CachingLookupService, type CachingLookupServiceOptions } from '../../../lib/cache/caching-lookup-service.js';
import { DossierError, isDossierError } from '../../../lib/errors.js';
import type { Lookup, LookupDataByKind } from '../../../lib/ports/lookup-service.js';

const silent = { info() {}, warn() {}, error() {} };

/** A clock the test moves. */
function fakeClock(start = Date.parse('2026-03-01T12:00:00Z')): { now(): number; advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

/**
 * A shared cache that reads its expiries from the test's clock (keyv's memory store reads the real
 * one), and records what it was told to keep.
 */
function clockedCache(clock: { now(): number }): CachingLookupServiceOptions['cache'] & { writes: number; keys(): string[] } {
  const entries = new Map<string, { value: unknown; expiresAt: number | undefined }>();
  const cache = {
    writes: 0,
    keys: () => [...entries.keys()],
    async getEntry<T>(key: string): Promise<{ value: T; expiresAt: number | undefined } | undefined> {
      const entry = entries.get(key);
      if (entry === undefined || (entry.expiresAt !== undefined && entry.expiresAt <= clock.now())) return undefined;
      return entry as { value: T; expiresAt: number | undefined };
    },
    async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
      cache.writes += 1;
      entries.set(key, { value, expiresAt: ttlMs === undefined ? undefined : clock.now() + ttlMs });
    },
  };
  return cache as unknown as CachingLookupServiceOptions['cache'] & { writes: number; keys(): string[] };
}

/** A DNS-kind lookup that counts its runs, answers with the given cache time, and fails while told to. */
function countingLookup(ttlSeconds: number): Lookup<'dns'> & { runs: number; failing: boolean } {
  const lookup = {
    kind: 'dns' as const,
    runs: 0,
    failing: false,
    parse: (input: unknown) => String(input).toLowerCase(),
    async run(target: string) {
      lookup.runs += 1;
      if (lookup.failing) throw new DossierError('ERR_UPSTREAM_FAILED', `run ${lookup.runs} failed`);
      const data = {
        domain: target,
        exists: true,
        A: [],
        AAAA: [],
        MX: [],
        NS: [],
        TXT: [`run ${lookup.runs}`],
        CNAME: [],
        SOA: null,
        CAA: [],
        dnssec: { signed: false, validated: null },
        mail: { spf: null, dmarc: null },
      };
      return { data: data as LookupDataByKind['dns'], ttlSeconds };
    },
  };
  return lookup;
}

describe('CachingLookupService', () => {
  let clock: ReturnType<typeof fakeClock>;
  let cache: ReturnType<typeof clockedCache>;
  const serviceOf = (lookup: Lookup): CachingLookupService =>
    new CachingLookupService({ lookups: [lookup], cache, timeoutMs: 1000, logger: silent, clock });

  beforeEach(() => {
    clock = fakeClock();
    cache = clockedCache(clock);
  });

  it('answers again from the cache until the answer expires, then asks again', async () => {
    const lookup = countingLookup(60);
    const service = serviceOf(lookup);
    expect((await service.lookup('dns', 'Example.com')).cached).to.equal(false);
    clock.advance(59_999);
    expect((await service.lookup('dns', 'example.com')).cached).to.equal(true);
    expect(lookup.runs).to.equal(1);
    clock.advance(1);
    expect((await service.lookup('dns', 'example.com')).cached).to.equal(false);
    expect(lookup.runs).to.equal(2);
  });

  it('serves an answer another instance put in the shared cache, and keeps its expiry', async () => {
    const writer = serviceOf(countingLookup(60));
    const readerLookup = countingLookup(60);
    const reader = serviceOf(readerLookup);
    await writer.lookup('dns', 'example.com');
    clock.advance(30_000);
    expect((await reader.lookup('dns', 'example.com')).cached).to.equal(true);
    expect(readerLookup.runs).to.equal(0);
    // The reader keeps the answer in its own memory until the writer's expiry, not 60 s after its read.
    clock.advance(30_000);
    expect((await reader.lookup('dns', 'example.com')).cached).to.equal(false);
    expect(readerLookup.runs).to.equal(1);
  });

  it('never reads an answer an older version cached in its own form (snake_case): it asks, and caches under a new key', async () => {
    // Dossier 1.x kept interface A's records, under `<kind>:<target>`.
    await cache.set('dns:example.com', { domain: 'example.com', exists: true, TXT: ['from an older version'] }, 60_000);
    const lookup = countingLookup(60);
    const { data, cached } = await serviceOf(lookup).lookup('dns', 'example.com');
    expect(cached).to.equal(false);
    expect(data.TXT).to.deep.equal(['run 1']);
    expect(lookup.runs).to.equal(1);
    expect(cache.keys()).to.have.length(2).and.to.include('dns:example.com');
  });

  it('does not cache an answer whose cache time is zero', async () => {
    const lookup = countingLookup(0);
    const service = serviceOf(lookup);
    await service.lookup('dns', 'example.com');
    expect((await service.lookup('dns', 'example.com')).cached).to.equal(false);
    expect(lookup.runs).to.equal(2);
    expect(cache.writes).to.equal(0);
  });

  it('never caches a failure: the next lookup asks upstream again', async () => {
    const lookup = countingLookup(60);
    const service = serviceOf(lookup);
    lookup.failing = true;
    const error = await service.lookup('dns', 'example.com').catch((e: unknown) => e);
    expect(isDossierError(error, 'ERR_UPSTREAM_FAILED'), String(error)).to.equal(true);
    expect(cache.writes).to.equal(0);
    lookup.failing = false;
    const answer = await service.lookup('dns', 'example.com');
    expect(answer).to.deep.include({ cached: false });
    expect(answer.data.TXT).to.deep.equal(['run 2']);
    expect(lookup.runs).to.equal(2);
  });

  it('never caches a timeout either', async () => {
    let runs = 0;
    const slow: Lookup<'dns'> = {
      kind: 'dns',
      parse: (input) => String(input),
      run: (_target, signal) => {
        runs += 1;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      },
    };
    const service = new CachingLookupService({ lookups: [slow], cache, timeoutMs: 20, logger: silent, clock });
    for (let i = 0; i < 2; i++) {
      const error = await service.lookup('dns', 'example.com').catch((e: unknown) => e);
      expect(isDossierError(error, 'ERR_UPSTREAM_TIMEOUT'), String(error)).to.equal(true);
    }
    expect(runs).to.equal(2);
    expect(cache.writes).to.equal(0);
  });

  describe('fresh', () => {
    it('skips a cached answer, asks upstream, and writes the new answer for the lookups after it', async () => {
      const lookup = countingLookup(60);
      const service = serviceOf(lookup);
      expect((await service.lookup('dns', 'example.com')).data.TXT).to.deep.equal(['run 1']);
      const fresh = await service.lookup('dns', 'example.com', { fresh: true });
      expect(fresh).to.deep.include({ cached: false });
      expect(fresh.data.TXT).to.deep.equal(['run 2']);
      expect(cache.writes).to.equal(2);
      const after = await service.lookup('dns', 'example.com');
      expect(after).to.deep.include({ cached: true });
      expect(after.data.TXT).to.deep.equal(['run 2']);
      // The refreshed answer lives its full time from the fresh lookup.
      clock.advance(59_000);
      expect((await service.lookup('dns', 'example.com')).data.TXT).to.deep.equal(['run 2']);
      expect(lookup.runs).to.equal(2);
    });

    it('refreshes the answer another instance reads from the shared cache', async () => {
      const writer = serviceOf(countingLookup(60));
      const reader = serviceOf(countingLookup(60));
      await writer.lookup('dns', 'example.com');
      await writer.lookup('dns', 'example.com', { fresh: true });
      const read = await reader.lookup('dns', 'example.com');
      expect(read).to.deep.include({ cached: true });
      expect(read.data.TXT).to.deep.equal(['run 2']);
    });

    it('leaves the cached answer in place when the fresh lookup fails, and caches no failure', async () => {
      const lookup = countingLookup(60);
      const service = serviceOf(lookup);
      await service.lookup('dns', 'example.com');
      lookup.failing = true;
      const error = await service.lookup('dns', 'example.com', { fresh: true }).catch((e: unknown) => e);
      expect(isDossierError(error, 'ERR_UPSTREAM_FAILED'), String(error)).to.equal(true);
      expect(cache.writes).to.equal(1);
      const cached = await service.lookup('dns', 'example.com');
      expect(cached).to.deep.include({ cached: true });
      expect(cached.data.TXT).to.deep.equal(['run 1']);
    });

    it('still refuses bad input before asking anyone', async () => {
      const lookup: Lookup<'dns'> = {
        ...countingLookup(60),
        parse: () => {
          throw new DossierError('ERR_LOOKUP_INVALID_DOMAIN', 'bad');
        },
      };
      const error = await serviceOf(lookup)
        .lookup('dns', 'not a domain', { fresh: true })
        .catch((e: unknown) => e);
      expect(isDossierError(error, 'ERR_LOOKUP_INVALID_DOMAIN'), String(error)).to.equal(true);
    });
  });
});
