import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { createDocumentService } from './documents/create-document-service.js';
import { KeyvDocumentStore } from './documents/keyv-document-store.js';
import { createTextGenerator } from './generators/create-text-generator.js';
import { KeyvKeyStore } from './keys/keyv-key-store.js';
import { RecordKeyStore } from './keys/record-key-store.js';
import { KvSessionStore } from './keys/kv-session-store.js';
import { CachingLookupService } from './cache/caching-lookup-service.js';
import { createDnsMessageClient } from './lookup/dns/dns-message-client.js';
import { DnsLookup } from './lookup/dns/dns-lookup.js';
import { IpLookup } from './lookup/ip/ip-lookup.js';
import type { LookupContext } from './lookup/net/lookup-context.js';
import { SslLookup } from './lookup/ssl/ssl-lookup.js';
import { systemDnsResolverFactory } from './lookup/net/system-dns-resolver.js';
import { RangeTargetGuard } from './lookup/net/target-guard.js';
import { WhoisLookup } from './lookup/whois/whois-lookup.js';
import type { ResolvedOptions } from './options.js';
import { CounterQuotaStore } from './quota/counter-quota-store.js';
import type { Backend } from './ports/backend.js';
import { loadDriver, openBackend, type BackendOptions } from './stores/open-backend.js';
import {
  TelemetryHub,
  instrumentLookup,
  instrumentLookupService,
  instrumentAdmissionStore,
  instrumentQuotaStore,
  instrumentTextGenerator,
  observeStoreErrors,
} from './telemetry/instrument.js';
import { TOKENS } from './tokens.js';
import { createWatchService } from './watches/create-watch-service.js';
import { KeyStoreWithWatches } from './watches/key-store-with-watches.js';
import type { WatchJobs } from './ports/watch-jobs.js';

/** Lookup answers kept by a `memory://` cache at the most. */
const MEMORY_CACHE_ENTRIES = 10_000;

/** The composition root and how to release what it opened. */
export interface Composition {
  container: DependencyContainer;
  /** Closes the backends that were opened (none is opened only to be closed). */
  close(): Promise<void>;
  /** Where the core's measurements go; adapters attach their observers to it. */
  telemetry: TelemetryHub;
  /**
   * Waits for what must be open before serving (today: the GeoIP files of the IP lookup) and checks it.
   * @throws DossierError `ERR_CONFIG_INVALID` naming the setting of a file that is not usable.
   */
  ready(): Promise<void>;
}

/**
 * The one composition root: a child container per Dossier (never the global one), so that two
 * instances in one process share nothing. A port given in the options replaces the built-in one.
 */
export function createContainer(options: ResolvedOptions): Composition {
  // Here, not when the container first opens a backend: a missing driver then stops createDossier with
  // its own message (the npm install line), not one that the container wraps.
  loadDriver(options.store);
  loadDriver(options.cache);
  const container = rootContainer.createChildContainer();
  const opened: Backend[] = [];
  const open = (url: string, backendOptions: BackendOptions): Backend => {
    const backend = openBackend(url, backendOptions);
    opened.push(backend);
    return backend;
  };
  /** Registers what `factory` builds, once, on first use. */
  const once = <T>(token: InjectionToken<T>, factory: (c: DependencyContainer) => T): void => {
    container.register(token, { useFactory: instanceCachingFactory(factory) });
  };
  /** Registers the host's own implementation when it gave one, else builds the default once. */
  const provide = <T>(token: InjectionToken<T>, given: T | undefined, factory: (c: DependencyContainer) => T): void => {
    if (given !== undefined) container.register(token, { useValue: given });
    else once(token, factory);
  };

  const hub = new TelemetryHub();
  if (options.telemetry !== undefined) hub.add(options.telemetry);
  const readiness: (() => Promise<void>)[] = [];

  container.register(TOKENS.clock, { useValue: options.clock });
  once(TOKENS.storeBackend, () =>
    open(options.store, {
      namespace: 'dossier',
      clock: options.clock,
      timeoutMs: options.storeTimeoutMs,
      logger: options.logger,
    }),
  );
  once(TOKENS.storeKv, (c) => observeStoreErrors(c.resolve(TOKENS.storeBackend).kv, hub));
  once(TOKENS.storeCounters, (c) => observeStoreErrors(c.resolve(TOKENS.storeBackend).counters, hub));
  once(TOKENS.sessions, (c) => {
    const { sessions } = c.resolve(TOKENS.storeBackend);
    if (sessions !== undefined) return observeStoreErrors(sessions, hub);
    return new KvSessionStore(c.resolve(TOKENS.storeKv), c.resolve(TOKENS.storeCounters), options.clock);
  });
  once(TOKENS.cacheBackend, () =>
    open(options.cache, {
      namespace: 'dossier-cache',
      clock: options.clock,
      timeoutMs: options.storeTimeoutMs,
      memoryLimit: MEMORY_CACHE_ENTRIES,
    }),
  );
  container.register(TOKENS.dnsResolverFactory, {
    useValue: options.createDnsResolver ?? systemDnsResolverFactory(options.dnsServerAddresses, options.lookupTimeoutMs),
  });
  container.register(TOKENS.targetGuard, { useValue: new RangeTargetGuard(options.allowPrivateTargets) });

  provide(TOKENS.lookupService, options.lookups, (c) => {
    const context: LookupContext = {
      createResolver: c.resolve(TOKENS.dnsResolverFactory),
      guard: c.resolve(TOKENS.targetGuard),
      clock: options.clock,
      logger: options.logger,
    };
    const timeoutMs = options.lookupTimeoutMs;
    const messageClient = options.dnsMessageClient ?? createDnsMessageClient({ servers: options.dnsServerAddresses, timeoutMs });
    const { whoisServerAddress, rdapUrl, geoipCity, geoipAsn } = options;
    const ip = new IpLookup(context, { timeoutMs, geoipCity, geoipAsn });
    readiness.push(() => ip.ready());
    const lookups = [
      new DnsLookup(context.createResolver, messageClient),
      new WhoisLookup(context, { timeoutMs, whoisServer: whoisServerAddress ?? undefined, rdapUrl }),
      ip,
      new SslLookup(context, { port: options.sslPort, caCertificates: options.sslCaCertificates }),
    ];
    const service = new CachingLookupService({
      lookups: lookups.map((lookup) => instrumentLookup(lookup, hub)),
      cache: observeStoreErrors(c.resolve(TOKENS.cacheBackend).kv, hub),
      timeoutMs: options.lookupTimeoutMs,
      logger: options.logger,
      clock: options.clock,
    });
    return instrumentLookupService(service, hub);
  });
  container.register(TOKENS.meteringOptions, { useValue: { defaultDailyLimit: options.dailyLimit, logger: options.logger } });
  // The one-step hot path reads and writes what the built-in key and quota stores keep: a host that
  // replaced either gets the two-step path through its own.
  once(TOKENS.admissions, (c) =>
    options.keys === undefined && options.quotas === undefined
      ? instrumentAdmissionStore(observeStoreErrors(c.resolve(TOKENS.storeBackend).admissions, hub), hub)
      : null,
  );
  provide(TOKENS.keyStore, options.keys, (c) => {
    const { keys } = c.resolve(TOKENS.storeBackend);
    return keys === undefined ? c.resolve(KeyvKeyStore) : new RecordKeyStore(observeStoreErrors(keys, hub), options.clock);
  });
  provide(TOKENS.quotaStore, options.quotas, (c) => instrumentQuotaStore(c.resolve(CounterQuotaStore), hub));
  provide(TOKENS.textGenerator, options.textGenerator, () => instrumentTextGenerator(createTextGenerator(options), hub));
  once(TOKENS.documentStore, (c) => {
    const { documents } = c.resolve(TOKENS.storeBackend);
    if (documents !== undefined) return observeStoreErrors(documents, hub);
    return new KeyvDocumentStore(c.resolve(TOKENS.storeKv), c.resolve(TOKENS.storeCounters), options.clock);
  });
  provide(TOKENS.documentService, options.documents, (c) =>
    createDocumentService({
      store: c.resolve(TOKENS.documentStore),
      generator: c.resolve(TOKENS.textGenerator),
      clock: options.clock,
      customTemplates: options.customTemplates,
      generatorTimeoutMs: options.generatorTimeoutMs,
    }),
  );
  const watchEngine: { built?: WatchJobs } = {};
  once(TOKENS.watchService, (c) => createWatchService(c, options, hub, watchEngine));
  container.register(TOKENS.watchServiceProvider, { useValue: () => container.resolve(TOKENS.watchService) });
  once(TOKENS.keys, (c) => new KeyStoreWithWatches(c.resolve(TOKENS.keyStore), c.resolve(TOKENS.watchServiceProvider)));
  return {
    container,
    telemetry: hub,
    async ready() {
      container.resolve(TOKENS.lookupService);
      await Promise.all(readiness.map((check) => check()));
    },
    async close() {
      // The jobs first: a check or delivery in flight still needs the store.
      await watchEngine.built?.close();
      await Promise.all(opened.splice(0).map((backend) => backend.close()));
      await container.dispose();
    },
  };
}
