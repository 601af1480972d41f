import { createContainer } from './container.js';
import { resolveOptions, type DossierOptions, type ResolvedOptions } from './options.js';
import type { DocumentService } from './ports/document-service.js';
import type { ApiKey, KeyStore } from './ports/key-store.js';
import type { LookupService } from './ports/lookup-service.js';
import type { QuotaStore } from './ports/quota-store.js';
import { TOKENS } from './tokens.js';

/** A running Dossier: its services, and how to shut it down. */
export interface Dossier {
  /** Interface A: the four lookups, with cache and deadline. */
  readonly lookups: LookupService;
  /** Bearer keys. */
  readonly keys: KeyStore;
  /** Daily lookup quotas. */
  readonly quotas: QuotaStore;
  /** Interface B: documents. */
  readonly documents: DocumentService;
  /** The options in force, defaults filled in. */
  readonly options: ResolvedOptions;
  /** The daily limit that applies to a key: its own, else the configured default. */
  dailyLimitOf(key: ApiKey): number;
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
    documents: container.resolve(TOKENS.documentService),
    options: resolved,
    dailyLimitOf: (key) => key.dailyLimit ?? resolved.dailyLimit,
    close() {
      closing ??= close();
      return closing;
    },
  };
}
