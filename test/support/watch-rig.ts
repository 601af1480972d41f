import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import type { DossierOptions } from '../../lib/options.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { RangeTargetGuard } from '../../lib/lookup/net/target-guard.js';
import { systemDnsResolverFactory } from '../../lib/lookup/net/system-dns-resolver.js';
import { parseHostPort } from '../../lib/lookup/net/host-port.js';
import { TimerWatchJobs } from '../../lib/watches/jobs/timer-jobs.js';
import type { StoredWatch } from '../../lib/watches/keyv-watch-store.js';
import type { WatchStore } from '../../lib/ports/watch-store.js';
import { watchStoreOf } from '../../lib/watches/create-watch-service.js';
import { KeyvWatchService } from '../../lib/watches/watch-service.js';
import { createTrustContext } from '../../lib/lookup/ssl/ssl-lookup.js';

/** A clock a test moves. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

/** A clock at `start` that moves only when told. */
export function testClock(start = Date.parse('2026-06-01T00:00:00Z')): TestClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}

/**
 * A watch service on the timer engine, whose time is a test clock: `jobs.runDue()` runs what that clock
 * says is due, so a test moves time instead of waiting. Lookups are a real Dossier's, on the test's
 * DNS (and other) servers.
 */
export interface WatchRig {
  clock: TestClock;
  watches: KeyvWatchService;
  jobs: TimerWatchJobs;
  /** The store the watches live in. */
  store: WatchStore<StoredWatch>;
  dossier: Dossier;
  /** Moves the clock and runs what fell due, and what that set off (deliveries), until nothing is left. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Builds a {@link WatchRig}. */
export async function startWatchRig(
  options: DossierOptions & {
    dnsServers: string[];
    allowPrivateTargets: boolean;
    watchesPerKey?: number;
    /** Where the watches live. @default 'memory://' */
    watchStore?: string;
    /** Run the due work in this rig (a server or worker), or only hand it on. @default true */
    runsWork?: boolean;
    /** The clock, shared by rigs that play processes on one store. @default a new test clock */
    clock?: TestClock;
    /** The deadline of one webhook attempt, in ms. @default 10000 */
    attemptDeadlineMs?: number;
  },
): Promise<WatchRig> {
  const clock = options.clock ?? testClock();
  const dossier = createDossier({
    store: 'memory://',
    cache: 'memory://',
    lookupTimeoutMs: 2000,
    ...options,
    clock,
    workers: false,
  });
  const backend = openBackend(options.watchStore ?? 'memory://', { namespace: 'dossier', clock });
  const jobs = new TimerWatchJobs(clock, dossier.options.logger);
  const store = watchStoreOf(backend, backend.kv, backend.counters);
  const watches = new KeyvWatchService({
    store,
    counters: backend.counters,
    lookups: dossier.lookups,
    jobs: () => jobs,
    keys: dossier.keys,
    quota: dossier.metering,
    clock,
    createResolver: systemDnsResolverFactory(
      options.dnsServers.map((server) => parseHostPort(server, 53)!),
      2000,
    ),
    guard: new RangeTargetGuard(options.allowPrivateTargets),
    watchesPerKey: options.watchesPerKey ?? 100,
    telemetry: { watchCheck() {}, webhookDelivery() {} },
    logger: dossier.options.logger,
    attemptDeadlineMs: options.attemptDeadlineMs,
    secureContext: createTrustContext(options.sslCaCertificates ?? []),
  });
  jobs.attach(watches.handlers);
  if (options.runsWork !== false) await jobs.start();
  const settle = async (): Promise<void> => {
    await jobs.settled();
    await jobs.runDue();
    await jobs.settled();
  };
  return {
    clock,
    watches,
    jobs,
    store,
    dossier,
    async advance(ms) {
      clock.advance(ms);
      await settle();
      // A check that found events queued their first attempts, due now.
      await settle();
    },
    async close() {
      await jobs.close();
      await backend.close();
      await dossier.close();
    },
  };
}

/** What rigs that play processes on one SQLite file share: that file and one clock. */
export interface SharedRigOptions {
  options: { dnsServers: string[]; allowPrivateTargets: true; watchStore: string; clock: TestClock };
  clock: TestClock;
  /** Removes the file. */
  cleanup(): void;
}

/** The options of rigs that play processes on one SQLite file (in a new folder), on one test clock. */
export function sharedRigOptions(dnsServers: string[]): SharedRigOptions {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-watch-rig-'));
  const clock = testClock();
  return {
    options: { dnsServers, allowPrivateTargets: true, watchStore: `sqlite://${join(dir, 'store.sqlite')}`, clock },
    clock,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
