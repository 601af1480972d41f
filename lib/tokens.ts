import type { InjectionToken } from 'tsyringe';
import type { AdmissionStore } from './ports/admission-store.js';
import type { Clock } from './ports/clock.js';
import type { CounterStore } from './ports/counter-store.js';
import type { DnsResolver } from './ports/dns-resolver.js';
import type { DocumentService } from './ports/document-service.js';
import type { DocumentStore } from './ports/document-store.js';
import type { KeyStore } from './ports/key-store.js';
import type { LookupService } from './ports/lookup-service.js';
import type { QuotaStore } from './ports/quota-store.js';
import type { SessionStore } from './ports/session-store.js';
import type { TextGenerator } from './ports/text-generator.js';
import type { Backend } from './ports/backend.js';
import type { KvStore } from './ports/kv-store.js';
import type { TargetGuard } from './ports/target-guard.js';
import type { MeteringOptions } from './ports/metering.js';
import type { WatchJobs } from './ports/watch-jobs.js';
import type { WatchService } from './ports/watches.js';

/** Typed DI tokens of the composition root. */
export const TOKENS = {
  clock: Symbol('clock') as InjectionToken<Clock>,
  storeBackend: Symbol('storeBackend') as InjectionToken<Backend>,
  storeKv: Symbol('storeKv') as InjectionToken<KvStore>,
  storeCounters: Symbol('storeCounters') as InjectionToken<CounterStore>,
  /** The sessions of the panel and the workspace, and the wrong tries of each address. */
  sessions: Symbol('sessions') as InjectionToken<SessionStore>,
  cacheBackend: Symbol('cacheBackend') as InjectionToken<Backend>,
  dnsResolverFactory: Symbol('dnsResolverFactory') as InjectionToken<() => DnsResolver>,
  targetGuard: Symbol('targetGuard') as InjectionToken<TargetGuard>,
  lookupService: Symbol('lookupService') as InjectionToken<LookupService>,
  keyStore: Symbol('keyStore') as InjectionToken<KeyStore>,
  /** The keys as Dossier hands them out: the key store, whose revoke also removes the key's watches. */
  keys: Symbol('keys') as InjectionToken<KeyStore>,
  quotaStore: Symbol('quotaStore') as InjectionToken<QuotaStore>,
  /** Where documents live: the store backend's tables, or its values and counters. */
  documentStore: Symbol('documentStore') as InjectionToken<DocumentStore>,
  documentService: Symbol('documentService') as InjectionToken<DocumentService>,
  textGenerator: Symbol('textGenerator') as InjectionToken<TextGenerator>,
  meteringOptions: Symbol('meteringOptions') as InjectionToken<MeteringOptions>,
  /** The store's one-step admission; `null` when the host replaced the key or quota store. */
  admissions: Symbol('admissions') as InjectionToken<AdmissionStore | null>,
  /** Where the checks and deliveries of watches run. */
  watchJobs: Symbol('watchJobs') as InjectionToken<WatchJobs>,
  watchService: Symbol('watchService') as InjectionToken<WatchService>,
  /** The watch service, asked for on use: for what is built before it (Metering, which it uses). */
  watchServiceProvider: Symbol('watchServiceProvider') as InjectionToken<() => WatchService>,
} as const;
