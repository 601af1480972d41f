import { createContainer } from './container.js';
import { DossierError } from './errors.js';
import { AdminSessions } from './keys/admin-sessions.js';
import { WorkspaceSessions } from './keys/workspace-sessions.js';
import { resolveOptions, type DossierOptions, type ResolvedOptions } from './options.js';
import type { DocumentService } from './ports/document-service.js';
import type { KeyStore } from './ports/key-store.js';
import type { LookupService } from './ports/lookup-service.js';
import type { QuotaStore } from './ports/quota-store.js';
import { Metering } from './quota/metering.js';
import type { Telemetry } from './ports/telemetry.js';
import type { KvStore } from './ports/kv-store.js';
import { TOKENS } from './tokens.js';
import type { WatchService } from './ports/watches.js';

/** A running Dossier: its services, and how to shut it down. */
export interface Dossier {
  /** Interface A: the four lookups, with cache and deadline. */
  readonly lookups: LookupService;
  /** Bearer keys. Revoking one also removes its watches (docs/contract.md §11). */
  readonly keys: KeyStore;
  /** Daily lookup quotas and usage history. */
  readonly quotas: QuotaStore;
  /**
   * The quota rules of interface A, for every adapter alike: `metering.lookup(secret, kind, input)` is a
   * lookup as `GET /api/<kind>` answers it, with the quota state; `metering.batch(secret, body)` a batch as
   * `POST /api/batch` answers it; `metering.usage(secret)` what a key has used.
   */
  readonly metering: Metering;
  /** Interface B: documents. */
  readonly documents: DocumentService;
  /** The administration panel's sign-outs and sign-in lock-outs, shared by every process on the store. */
  readonly adminSessions: AdminSessions;
  /** The documents workspace's sessions (docs/contract.md §14), shared by every process on the store. */
  readonly workspaceSessions: WorkspaceSessions;
  /**
   * Watches (docs/contract.md §11): create, list, get, remove and check them, read their deliveries, and
   * hear their events in-process with `on(event, listener)`. The first use starts this process's
   * share of the checks and deliveries, unless the option `workers` is false.
   */
  readonly watches: WatchService;
  /**
   * Starts this process's share of the checks and deliveries of watches (done by the first use of
   * `watches` unless `workers` is false; `dossier worker` calls it). Idempotent.
   */
  startWorkers(): Promise<void>;
  /** The options in force, defaults filled in. */
  readonly options: ResolvedOptions;
  /**
   * Opens and checks, once, what the options name: the store and the cache answer, and each GeoIP file
   * is a well-formed database of its kind. A server awaits it before it listens.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store or the cache does not answer within
   *   `deadlineMs` (default 5000); `ERR_CONFIG_INVALID`, naming the setting, for an unusable GeoIP file.
   */
  ready(deadlineMs?: number): Promise<void>;
  /**
   * Asks the store and the cache for one value each, every probe held to `deadlineMs`, and says which
   * answered. Never throws.
   */
  probe(deadlineMs: number): Promise<{ store: boolean; cache: boolean }>;
  /** Attaches an observer of what the core measures (see {@link Telemetry}); returns how to detach it. */
  observe(observer: Telemetry): () => void;
  /** Closes every connection Dossier opened. Idempotent. */
  close(): Promise<void>;
}

/** How long {@link Dossier.ready} waits for the store and the cache by default. */
const READY_DEADLINE_MS = 5000;

/** A key no one writes: reading it proves that a store answers. */
const PROBE_KEY = 'dossier:probe';

/** True when `kv` answers a read within `deadlineMs`. */
async function answers(kv: KvStore, deadlineMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  const read = kv.get(PROBE_KEY).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Builds a Dossier from options (see {@link DossierOptions}; `optionsFromEnv()` reads them from the
 * environment). Stores connect lazily: a backend that is down shows as `ERR_STORE_UNAVAILABLE` on use.
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the option, for a bad value.
 */
export function createDossier(options: DossierOptions = {}): Dossier {
  const resolved = resolveOptions(options);
  const { container, close, telemetry, ready } = createContainer(resolved);
  const probe = async (deadlineMs: number): Promise<{ store: boolean; cache: boolean }> => {
    const [store, cache] = await Promise.all([
      answers(container.resolve(TOKENS.storeKv), deadlineMs),
      answers(container.resolve(TOKENS.cacheBackend).kv, deadlineMs),
    ]);
    return { store, cache };
  };
  let closing: Promise<void> | undefined;
  let adminSessions: AdminSessions | undefined;
  let workspaceSessions: WorkspaceSessions | undefined;
  let workers: Promise<void> | undefined;
  const startWorkers = (): Promise<void> => {
    workers ??= (async () => {
      // The service first: it tells the engine what its work is.
      container.resolve(TOKENS.watchService);
      await container.resolve(TOKENS.watchJobs).start();
    })();
    return workers;
  };
  return {
    lookups: container.resolve(TOKENS.lookupService),
    keys: container.resolve(TOKENS.keys),
    quotas: container.resolve(TOKENS.quotaStore),
    metering: container.resolve(Metering),
    documents: container.resolve(TOKENS.documentService),
    // Made on first use: a Dossier that serves no panel opens no store for it.
    get adminSessions() {
      adminSessions ??= new AdminSessions(container.resolve(TOKENS.sessions), resolved.clock);
      return adminSessions;
    },
    get workspaceSessions() {
      workspaceSessions ??= new WorkspaceSessions(
        container.resolve(TOKENS.sessions),
        container.resolve(TOKENS.keys),
        resolved.clock,
      );
      return workspaceSessions;
    },
    get watches() {
      const watches = container.resolve(TOKENS.watchService);
      // Its engine too, at once: one that needs a package not installed says so here, not at the first watch.
      container.resolve(TOKENS.watchJobs);
      if (resolved.workers && closing === undefined) {
        startWorkers().catch((error: unknown) =>
          resolved.logger.error('the watch workers did not start', {
            message: error instanceof Error ? error.message : String(error),
          }),
        );
      }
      return watches;
    },
    startWorkers,
    options: resolved,
    async ready(deadlineMs = READY_DEADLINE_MS) {
      const [{ store, cache }] = await Promise.all([probe(deadlineMs), ready()]);
      if (!store || !cache) {
        const which = !store ? `store (${redact(resolved.store)})` : `cache (${redact(resolved.cache)})`;
        throw new DossierError('ERR_STORE_UNAVAILABLE', `The ${which} did not answer within ${deadlineMs} ms.`);
      }
    },
    probe,
    observe: (observer) => telemetry.add(observer),
    close() {
      closing ??= close();
      return closing;
    },
  };
}

/** A store URL with its password hidden, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}
