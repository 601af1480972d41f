import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { ResolvedOptions } from '../options.js';
import type { WatchJobs } from '../ports/watch-jobs.js';
import type { TelemetryHub } from '../telemetry/instrument.js';
import { TOKENS } from '../tokens.js';
import { createTrustContext } from '../lookup/ssl/ssl-lookup.js';
import { Metering } from '../quota/metering.js';
import { STORE_SCHEMES, storeScheme } from '../stores/schemes.js';
import { BullWatchJobs } from './jobs/bullmq-jobs.js';
import { TimerWatchJobs } from './jobs/timer-jobs.js';
import { KeyvWatchStore, type StoredWatch } from './keyv-watch-store.js';
import type { Backend } from '../ports/backend.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { KvStore } from '../ports/kv-store.js';
import type { WatchStore } from '../ports/watch-store.js';
import { observeStoreErrors } from '../telemetry/instrument.js';
import type { WatchService } from '../ports/watches.js';
import { KeyvWatchService } from './watch-service.js';

/**
 * The job engine the store calls for (docs/contract.md §11, lib/stores/schemes.ts): BullMQ on Redis and
 * PostgreSQL, timers of each process elsewhere (SQLite, MySQL, memory).
 */
export function createWatchJobs(options: ResolvedOptions): WatchJobs {
  const scheme = storeScheme(options.store);
  if (scheme !== undefined && STORE_SCHEMES[scheme].jobs === 'bullmq') {
    return new BullWatchJobs({
      url: options.store,
      prefix: options.jobQueuePrefix,
      concurrency: options.watchConcurrency,
      logger: options.logger,
    });
  }
  return new TimerWatchJobs(options.clock, options.logger, options.watchConcurrency);
}

/**
 * The watches of a backend: its own records where it keeps them (SQL tables, Redis structures), else
 * values of `kv` and `counters` (memory://).
 */
export function watchStoreOf(backend: Pick<Backend, 'watches'>, kv: KvStore, counters: CounterStore): WatchStore<StoredWatch> {
  return (backend.watches as WatchStore<StoredWatch> | undefined) ?? new KeyvWatchStore(kv, counters);
}

/**
 * The watch service of a Dossier. Its engine is registered beside it, built on first use (removing the
 * watches of a revoked key that had none needs no engine, nor its optional package) and attached to the
 * service's work; `engine.built` holds it once built, so that closing reaches it.
 */
export function createWatchService(
  c: DependencyContainer,
  options: ResolvedOptions,
  hub: TelemetryHub,
  engine: { built?: WatchJobs },
): WatchService {
  const backend = c.resolve(TOKENS.storeBackend);
  const service = new KeyvWatchService({
    store: watchStoreOf(
      { watches: backend.watches && observeStoreErrors(backend.watches, hub) },
      c.resolve(TOKENS.storeKv),
      c.resolve(TOKENS.storeCounters),
    ),
    counters: c.resolve(TOKENS.storeCounters),
    lookups: c.resolve(TOKENS.lookupService),
    jobs: () => c.resolve(TOKENS.watchJobs),
    keys: c.resolve(TOKENS.keyStore),
    quota: c.resolve(Metering),
    clock: options.clock,
    createResolver: c.resolve(TOKENS.dnsResolverFactory),
    guard: c.resolve(TOKENS.targetGuard),
    watchesPerKey: options.watchesPerKey,
    telemetry: hub,
    logger: options.logger,
    secureContext: createTrustContext(options.sslCaCertificates ?? []),
  });
  c.register(TOKENS.watchJobs, {
    useFactory: instanceCachingFactory(() => {
      const jobs = createWatchJobs(options);
      jobs.attach(service.handlers);
      engine.built = jobs;
      return jobs;
    }),
  });
  return service;
}
