import { createContainer } from './container.js';
import { resolveOptions, type DossierOptions, type ResolvedOptions } from './options.js';
import type { DocumentService } from './ports/document-service.js';
import type { KeyStore } from './ports/key-store.js';
import type { LookupService } from './ports/lookup-service.js';
import type { QuotaStore } from './ports/quota-store.js';
import { Metering } from './quota/metering.js';
import { TOKENS } from './tokens.js';

/** A running Dossier: its services, and how to shut it down. */
export interface Dossier {
  /** Interface A: the four lookups, with cache and deadline. */
  readonly lookups: LookupService;
  /** Bearer keys. */
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
  /** The options in force, defaults filled in. */
  readonly options: ResolvedOptions;
  /** Closes every connection Dossier opened. Idempotent. */
  close(): Promise<void>;
}

/**
 * Builds a Dossier from options (see {@link DossierOptions}; `optionsFromEnv()` reads them from the
 * environment). Stores connect lazily: a backend that is down shows as `ERR_STORE_UNAVAILABLE` on use.
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the option, for a bad value.
 */
export function createDossier(options: DossierOptions = {}): Dossier {
  const resolved = resolveOptions(options);
  const { container, close } = createContainer(resolved);
  let closing: Promise<void> | undefined;
  return {
    lookups: container.resolve(TOKENS.lookupService),
    keys: container.resolve(TOKENS.keyStore),
    quotas: container.resolve(TOKENS.quotaStore),
    metering: container.resolve(Metering),
    documents: container.resolve(TOKENS.documentService),
    options: resolved,
    close() {
      closing ??= close();
      return closing;
    },
  };
}
