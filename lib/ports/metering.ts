import type { DossierError } from '../errors.js';
import type { ApiKey } from './key-store.js';
import type { Logger } from './logger.js';
import type { LookupKind, LookupResult, LookupService } from './lookup-service.js';
import type { QuotaState, QuotaStore } from './quota-store.js';

// The shapes that Metering (lib/quota) hands to the adapters, and that a batch run shares with it.

/** What {@link Metering} needs besides its ports. */
export interface MeteringOptions {
  /** The daily limit of a key that has none of its own. */
  defaultDailyLimit: number;
  /** Where a failed refund is reported. */
  logger: Logger;
}

/**
 * The outcome of a metered call: the value or the error, and where the key stands against its quota,
 * which every answer after authentication reports (`null` before it, or when the store that holds the
 * quota is what failed).
 */
export type Metered<T> =
  | { ok: true; value: T; key: ApiKey; quota: QuotaState }
  | { ok: false; error: DossierError; key: ApiKey | null; quota: QuotaState | null };

/** One item of a batch, its shape checked (its query is checked when it is looked up). */
export interface BatchItemRequest {
  kind: LookupKind;
  /** The domain or address as the client wrote it. */
  query: string;
  /** Skip the cache for this item (`"fresh": true`). */
  fresh: boolean;
}

/** One item's answer: the lookup's result, or the error a single lookup would have answered. */
export type BatchItemOutcome =
  | { kind: LookupKind; query: string; ok: true; value: LookupResult }
  | { kind: LookupKind; query: string; ok: false; error: DossierError };

/** A batch that was let through: its items finish on their own time. */
export interface BatchRun {
  /**
   * Every item's outcome, in the order given, once all are ready; and the key's quota after the batch
   * (`null` when the store could not say). Rejects only on a bug.
   */
  readonly done: Promise<{ items: BatchItemOutcome[]; quota: QuotaState | null }>;
}

/** How a batch reports its items as they finish. */
export interface BatchOptions {
  /**
   * Called once per item, as soon as that item is ready (so in the order they finish, not the order
   * given), and only for a batch that is let through: never for one refused whole.
   */
  onItem?: (index: number, outcome: BatchItemOutcome) => void;
  /**
   * Where the lines the batch causes go: the asking request's logger, which names the request on each
   * of them. @default the Dossier's logger
   */
  logger?: Logger;
}

/** The quota rules an on-demand watch check is held to ({@link Metering} implements them). */
export interface QuotaCharges {
  /**
   * Counts one lookup of `kind` for `key`, if its quota allows: the state after it (`allowed: false`
   * when it was spent, and nothing was counted).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  charge(key: ApiKey, kind: LookupKind): Promise<QuotaState>;
  /** Gives back a lookup {@link charge} counted; the state after it (as it was when the refund failed). */
  refund(key: ApiKey, quota: QuotaState, kind: LookupKind): Promise<QuotaState>;
  /** Where `key` stands, without counting. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  peek(key: ApiKey): Promise<QuotaState>;
  /** The refusal of a lookup past the limit. */
  quotaExceeded(quota: QuotaState): DossierError;
}

/** What a batch needs from {@link Metering}: its ports and its quota rules. */
export interface BatchRules {
  quotas: QuotaStore;
  lookups: LookupService;
  /** The refusal of a lookup past the limit. */
  quotaExceeded(quota: QuotaState): DossierError;
  /** Gives a counted lookup back; the state after it. */
  refund(key: ApiKey, quota: QuotaState, kind: LookupKind): Promise<QuotaState>;
  /** The key's quota now, or `null` when the store cannot say. */
  peek(key: ApiKey): Promise<QuotaState | null>;
}
