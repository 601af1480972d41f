import type { DependencyContainer } from 'tsyringe';
import type { ResolvedOptions } from '../../lib/options.js';
import type { CounterStore } from '../../lib/ports/counter-store.js';
import type { KvStore } from '../../lib/ports/kv-store.js';
import { Metering } from '../../lib/quota/metering.js';
import { TOKENS } from '../../lib/tokens.js';
import { TimerWatchJobs } from '../../lib/watches/jobs/timer-jobs.js';
import type { StoredWatch } from '../../lib/watches/keyv-watch-store.js';
import type { WatchStore } from '../../lib/ports/watch-store.js';
import { watchStoreOf } from '../../lib/watches/create-watch-service.js';
import { KeyvWatchService } from '../../lib/watches/watch-service.js';

/** A watch service a test built on ports of its choice, and its parts. */
export interface BuiltWatchService {
  store: WatchStore<StoredWatch>;
  service: KeyvWatchService;
  /** Its engine: timers, attached to the service, started only if the test starts it. */
  jobs: TimerWatchJobs;
}

/**
 * The watch service of a Dossier's container, on the store's own watch records, or (memory://) on `kv`
 * and `counters` (the container's own, or ones a test wraps to watch what is asked of the store), its
 * work handed to a timer engine.
 */
export function watchServiceOn(
  container: DependencyContainer,
  options: ResolvedOptions,
  { kv, counters }: { kv: KvStore; counters: CounterStore },
): BuiltWatchService {
  const store = watchStoreOf(container.resolve(TOKENS.storeBackend), kv, counters);
  const jobs = new TimerWatchJobs(options.clock, options.logger);
  const service = new KeyvWatchService({
    store,
    counters,
    lookups: container.resolve(TOKENS.lookupService),
    jobs: () => jobs,
    keys: container.resolve(TOKENS.keyStore),
    quota: container.resolve(Metering),
    clock: options.clock,
    createResolver: container.resolve(TOKENS.dnsResolverFactory),
    guard: container.resolve(TOKENS.targetGuard),
    watchesPerKey: options.watchesPerKey,
    telemetry: { watchCheck() {}, webhookDelivery() {} },
    logger: options.logger,
  });
  jobs.attach(service.handlers);
  return { store, service, jobs };
}

/** `port` with each call of its methods told to `seen` first (the method, its arguments): what a test counts of what is asked of a store. */
export function observed<T extends object>(port: T, seen: (method: string, args: unknown[]) => void): T {
  return new Proxy(port, {
    get(target, method) {
      const value: unknown = Reflect.get(target, method);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        seen(String(method), args);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
