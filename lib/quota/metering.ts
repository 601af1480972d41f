import { inject, injectable } from 'tsyringe';
import { DossierError, DossierQuotaError, isDossierError } from '../errors.js';
import { requireScope } from '../keys/key-rules.js';
import { keyStatusAt } from '../records/stored-key.js';
import type { Admission, AdmissionStore } from '../ports/admission-store.js';
import type { Clock } from '../ports/clock.js';
import type { ApiKey, KeyStatus, KeyStore, Scope } from '../ports/key-store.js';
import type { LookupKind, LookupOptions, LookupResult, LookupService } from '../ports/lookup-service.js';
import type { QuotaState, QuotaStore, UsageDay } from '../ports/quota-store.js';
import { TOKENS } from '../tokens.js';
import type {
  BatchItemRequest,
  BatchOptions,
  BatchRules,
  BatchRun,
  Metered,
  MeteringOptions,
  QuotaCharges,
} from '../ports/metering.js';
import type { Watch, WatchService } from '../ports/watches.js';
import { parseBatchRequest } from './batch-request.js';
import { failure, runBatch } from './batch.js';

/** What a key may read about itself (docs/contract.md §6). */
export interface KeyUsage {
  keyId: string;
  dailyLimit: number;
  usedToday: number;
  remaining: number;
  /** Unix seconds of the next UTC midnight. */
  resetAt: number;
  /** The last 30 UTC days, oldest first. */
  history: UsageDay[];
}

/** A key with what it has used today and where it stands, as an administrator sees it. */
export interface KeyReport extends ApiKey {
  usedToday: number;
  status: KeyStatus;
}

/** Days of history that {@link Metering.usage} reports. */
export const USAGE_HISTORY_DAYS = 30;

/**
 * The quota rules of interface A (docs/contract.md §2), in one place for every adapter: the key is checked,
 * then its scope, then the query (no I/O), and only then is a lookup counted; a target refused after
 * resolution is given back, since a 400 does not count; a lookup past the limit is refused with the
 * seconds to the next UTC midnight.
 */
@injectable()
export class Metering implements QuotaCharges {
  constructor(
    @inject(TOKENS.keyStore) private readonly keys: KeyStore,
    @inject(TOKENS.quotaStore) private readonly quotas: QuotaStore,
    @inject(TOKENS.lookupService) private readonly lookups: LookupService,
    @inject(TOKENS.clock) private readonly clock: Clock,
    @inject(TOKENS.meteringOptions) private readonly options: MeteringOptions,
    @inject(TOKENS.admissions) private readonly admissions: AdmissionStore | null,
    /** The watch service, asked for when a watch check comes (it is built with this Metering). */
    @inject(TOKENS.watchServiceProvider) private readonly watches: () => WatchService,
  ) {}

  /**
   * The working key behind a bearer secret (`null`: none was sent), which must hold `scope` when given.
   * @throws DossierError `ERR_AUTH_MISSING_KEY`, `ERR_AUTH_INVALID_KEY` (unknown, revoked or expired),
   *   `ERR_AUTH_INSUFFICIENT_SCOPE`, `ERR_STORE_UNAVAILABLE`.
   */
  async authenticate(secret: string | null, scope?: Scope): Promise<ApiKey> {
    if (secret === null) throw new DossierError('ERR_AUTH_MISSING_KEY', 'Send your key as "Authorization: Bearer <key>".');
    const key = secret === '' ? null : await this.keys.verify(secret);
    if (key === null) throw invalidKey();
    if (scope !== undefined) requireScope(key, scope);
    return key;
  }

  /** The daily limit that applies to a key: its own, else the configured default. */
  limitOf(key: ApiKey): number {
    return key.dailyLimit ?? this.options.defaultDailyLimit;
  }

  /**
   * One lookup under the quota rules. Core errors come back in the outcome with the quota state;
   * anything else (a bug) is thrown.
   */
  async lookup(
    secret: string | null,
    kind: LookupKind,
    input: unknown,
    options: LookupOptions = {},
  ): Promise<Metered<LookupResult>> {
    if (this.admissions !== null && secret !== null) {
      const target = this.parsedOrNothing(kind, input);
      if (target !== undefined) return this.admittedLookup(secret, kind, target, options);
    }
    let key: ApiKey;
    try {
      key = await this.authenticate(secret);
    } catch (error) {
      return failure(error, null, null);
    }
    let target: string;
    let quota: QuotaState;
    try {
      requireScope(key, 'lookup');
      target = this.lookups.parse(kind, input);
      quota = await this.quotas.consume(key.id, this.limitOf(key), kind);
    } catch (error) {
      return failure(error, key, await this.peekOrNothing(key, error));
    }
    if (!quota.allowed) return failure(this.quotaExceeded(quota), key, quota);
    return this.counted(key, quota, kind, target, options);
  }

  /**
   * A lookup whose query is valid, admitted in one step of the store (authenticate, check the scope and
   * count, atomically): one round trip before the lookup itself. Same rules and outcomes as the
   * two-step path of {@link lookup}.
   */
  private async admittedLookup(
    secret: string,
    kind: LookupKind,
    target: string,
    options: LookupOptions,
  ): Promise<Metered<LookupResult>> {
    let admission: Admission;
    try {
      admission = await this.admissions!.admit(secret, kind, this.options.defaultDailyLimit);
    } catch (error) {
      return failure(error, null, null);
    }
    if (admission.status === 'invalid') return failure(invalidKey(), null, null);
    const { key, quota } = admission;
    if (admission.status === 'no-scope') {
      try {
        requireScope(key, 'lookup');
      } catch (error) {
        return failure(error, key, quota);
      }
    }
    if (admission.status === 'exceeded') return failure(this.quotaExceeded(quota), key, quota);
    return this.counted(key, quota, kind, target, options);
  }

  /**
   * The lookup itself, once counted: its answer, or its error with the quota, given back first when the
   * target was refused after resolution (a 400 does not count).
   */
  private async counted(
    key: ApiKey,
    quota: QuotaState,
    kind: LookupKind,
    target: string,
    options: LookupOptions,
  ): Promise<Metered<LookupResult>> {
    try {
      return { ok: true, value: await this.lookups.lookup(kind, target, options), key, quota };
    } catch (error) {
      const refunded = isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED')
        ? await this.refund(key, quota, kind, options.logger)
        : quota;
      return failure(error, key, refunded);
    }
  }

  /** The parsed query, or `undefined` when it is invalid (the two-step path then answers in order). */
  private parsedOrNothing(kind: LookupKind, input: unknown): string | undefined {
    try {
      return this.lookups.parse(kind, input);
    } catch {
      return undefined;
    }
  }

  /**
   * A batch of lookups under the quota rules (docs/contract.md §8; see {@link runBatch} for how each item is
   * counted). `input` is the request, `{"lookups":[…]}`, as JSON text or parsed; or a function that
   * reads it, called only once the key and its scope have passed. Resolves once the quota is taken,
   * with the state after it; the items then finish on their own (`value.done`, `options.onItem`). The
   * whole batch is refused (`ok: false`) for the key, the scope, a body of the wrong shape
   * (`ERR_BATCH_INVALID`, naming the item), no quota left when it arrived, or a store that is down.
   */
  async batch(secret: string | null, input: unknown, options: BatchOptions = {}): Promise<Metered<BatchRun>> {
    let key: ApiKey;
    try {
      key = await this.authenticate(secret);
    } catch (error) {
      return failure(error, null, null);
    }
    let items: BatchItemRequest[];
    try {
      requireScope(key, 'lookup');
      items = parseBatchRequest(typeof input === 'function' ? await (input as () => Promise<unknown>)() : input);
    } catch (error) {
      return failure(error, key, await this.peekOrNothing(key, error));
    }
    const rules: BatchRules = {
      quotas: this.quotas,
      lookups: this.lookups,
      quotaExceeded: (quota) => this.quotaExceeded(quota),
      refund: (refunded, quota, kind) => this.refund(refunded, quota, kind, options.logger),
      peek: (peeked) => this.peekOrNothing(peeked, null),
    };
    return runBatch(rules, key, this.limitOf(key), items, options);
  }

  /**
   * An on-demand check of a watch (`POST /api/watches/{id}/check`, docs/contract.md §11): the key, its
   * `lookup` scope, then the watch service's rules (one lookup of the watch's type counted against the
   * key's quota, at most one check pending or running). Core errors come back in the outcome with the
   * quota state, the refusal of a spent quota included.
   */
  async checkWatch(secret: string | null, id: string): Promise<Metered<Watch>> {
    let key: ApiKey;
    try {
      key = await this.authenticate(secret);
    } catch (error) {
      return failure(error, null, null);
    }
    try {
      requireScope(key, 'lookup');
      const { watch, quota } = await this.watches().check(id, { owner: key.owner, key });
      return { ok: true, value: watch, key, quota: quota ?? (await this.peek(key)) };
    } catch (error) {
      return failure(error, key, error instanceof DossierQuotaError ? error.quota : await this.peekOrNothing(key, error));
    }
  }

  /**
   * What the key behind `secret` has used: today against its limit, and the last 30 days by kind. Needs
   * the `lookup` scope; does not count.
   * @throws DossierError as {@link authenticate}, and `ERR_STORE_UNAVAILABLE`.
   */
  async usage(secret: string | null): Promise<Metered<KeyUsage>> {
    let key: ApiKey | null = null;
    try {
      key = await this.authenticate(secret);
      const limit = this.limitOf(key);
      const quota = await this.quotas.peek(key.id, limit);
      requireScope(key, 'lookup');
      const history = await this.quotas.history(key.id, USAGE_HISTORY_DAYS);
      // Today's counted lookups, not limit - remaining: a limit lowered below what was used must not hide it.
      const usedToday = history.at(-1)?.total ?? limit - quota.remaining;
      const value = { keyId: key.id, dailyLimit: limit, usedToday, remaining: quota.remaining, resetAt: quota.resetAt, history };
      return { ok: true, value, key, quota };
    } catch (error) {
      return failure(error, key, key === null ? null : await this.peekOrNothing(key, error));
    }
  }

  /**
   * A key with its status and what it has used today (counted lookups, whatever its limit).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`.
   */
  async report(key: ApiKey): Promise<KeyReport> {
    const [today] = await this.quotas.history(key.id, 1);
    return { ...key, usedToday: today?.total ?? 0, status: keyStatusAt(key, this.clock.now()) };
  }

  /** The refusal of a lookup past the limit, with the seconds to the next UTC midnight. */
  quotaExceeded(quota: QuotaState): DossierQuotaError {
    const retryAfter = Math.max(1, quota.resetAt - Math.floor(this.clock.now() / 1000));
    return new DossierQuotaError(`This key has used its ${quota.limit} lookups for today.`, retryAfter, quota);
  }

  /**
   * Counts one lookup of `kind` for `key` if its quota allows: the state after it (`allowed: false`
   * when it was spent, and nothing was counted).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  charge(key: ApiKey, kind: LookupKind): Promise<QuotaState> {
    return this.quotas.consume(key.id, this.limitOf(key), kind);
  }

  /** Where `key` stands against its quota, without counting. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  peek(key: ApiKey): Promise<QuotaState> {
    return this.quotas.peek(key.id, this.limitOf(key));
  }

  /**
   * Gives a counted lookup back; the state after it, or as it was when the refund failed (said to
   * `logger`, the asking request's when given).
   */
  async refund(key: ApiKey, quota: QuotaState, kind: LookupKind, logger = this.options.logger): Promise<QuotaState> {
    try {
      await this.quotas.refund(key.id, quota, kind);
      return { ...quota, remaining: Math.min(quota.limit, quota.remaining + 1) };
    } catch (error) {
      // The 400 is still the answer; the lookup stays counted.
      logger.warn('quota refund failed', { keyId: key.id, error: String(error) });
      return quota;
    }
  }

  /** The quota for an error answer; none when the store that holds it is what failed. */
  private async peekOrNothing(key: ApiKey, error: unknown): Promise<QuotaState | null> {
    if (isDossierError(error, 'ERR_STORE_UNAVAILABLE')) return null;
    try {
      return await this.peek(key);
    } catch (peekError) {
      if (peekError instanceof DossierError) return null;
      throw peekError;
    }
  }
}

function invalidKey(): DossierError {
  return new DossierError('ERR_AUTH_INVALID_KEY', 'The key is unknown, expired or has been revoked.');
}
