import QuickLRU from 'quick-lru';
import { DossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type {
  Lookup,
  LookupDataByKind,
  LookupKind,
  LookupOptions,
  LookupResult,
  LookupService,
} from '../ports/lookup-service.js';
import type { KvStore } from '../ports/kv-store.js';

const PARSED_MEMO_SIZE = 1000;
const RECENT_ANSWERS = 1000;
/** How long an answer read from a cache that keeps no expiry stays in this process. */
const RECENT_FALLBACK_MS = 60_000;
/**
 * The form of the answers in the shared cache, part of each key: the cache outlives a version and is
 * shared by processes of several, so an answer of another form (version 1: interface A's snake_case
 * records) is never read as one of this form, only left to expire.
 */
const ANSWER_FORM = 2;

/** Settings of {@link CachingLookupService}. */
export interface CachingLookupServiceOptions {
  /** One lookup per kind; a kind without one answers `ERR_NOT_IMPLEMENTED`. */
  lookups: Lookup[];
  /** Where answers are cached. */
  cache: KvStore;
  /** Deadline of one upstream lookup, in milliseconds. */
  timeoutMs: number;
  /** Where cache failures are reported. */
  logger: Logger;
  /** Where the time comes from: when a cached answer expires. */
  clock: Clock;
}

/**
 * The lookup service: checks the query, answers from the cache when it can (unless asked for a fresh
 * answer, which is still written to the cache), shares one upstream call
 * among identical concurrent lookups, and holds every upstream call to its deadline (aborting it, so
 * its sockets close). A cache that fails is reported and bypassed: it is an optimization, not a truth.
 */
export class CachingLookupService implements LookupService {
  private readonly lookups: Map<LookupKind, Lookup>;
  private readonly inflight = new Map<string, Promise<{ data: unknown; ttlSeconds: number }>>();
  /** Recent valid inputs and their parsed targets: a request is parsed twice (before the quota, then here). */
  private readonly parsed = new Map<string, string>();
  /**
   * Answers this process read or wrote lately, until the expiry the shared cache gave them: an answer
   * does not change before it expires, so a hot target skips the shared cache (a network hop on Redis).
   */
  private readonly recent = new QuickLRU<string, { data: unknown; expiresAt: number }>({ maxSize: RECENT_ANSWERS });

  constructor(private readonly options: CachingLookupServiceOptions) {
    this.lookups = new Map(options.lookups.map((lookup) => [lookup.kind, lookup]));
  }

  parse(kind: LookupKind, input: unknown): string {
    if (typeof input !== 'string') return this.lookupFor(kind).parse(input);
    const memo = `${kind} ${input}`;
    let target = this.parsed.get(memo);
    if (target === undefined) {
      target = this.lookupFor(kind).parse(input);
      if (this.parsed.size >= PARSED_MEMO_SIZE) this.parsed.clear();
      this.parsed.set(memo, target);
    }
    return target;
  }

  async lookup<K extends LookupKind>(
    kind: K,
    input: unknown,
    options: LookupOptions = {},
  ): Promise<LookupResult<LookupDataByKind[K]>> {
    const lookup = this.lookupFor(kind);
    const target = this.parse(kind, input);
    const cacheKey = `v${ANSWER_FORM}:${kind}:${target}`;
    const logger = options.logger ?? this.options.logger;
    if (options.fresh !== true) {
      const hit = await this.cached<LookupDataByKind[K]>(cacheKey, logger);
      if (hit !== undefined) return { data: hit, cached: true };
    }

    let pending = this.inflight.get(cacheKey);
    if (pending === undefined) {
      pending = this.runWithDeadline(lookup, target, logger).finally(() => this.inflight.delete(cacheKey));
      this.inflight.set(cacheKey, pending);
      // Only an answer is written: a failure is never cached, so the next lookup asks again.
      pending.then(
        ({ data, ttlSeconds }) => {
          if (ttlSeconds <= 0) return;
          this.recent.set(cacheKey, { data, expiresAt: this.options.clock.now() + ttlSeconds * 1000 });
          this.options.cache.set(cacheKey, data, ttlSeconds * 1000).catch((error: unknown) => {
            logger.warn('lookup cache write failed', { error: String(error) });
          });
        },
        () => {},
      );
    }
    const { data } = await pending;
    return { data: data as LookupDataByKind[K], cached: false };
  }

  /** The answer cached under `cacheKey` and not yet expired: this process's own first, then the shared cache's. */
  private async cached<T>(cacheKey: string, logger: Logger): Promise<T | undefined> {
    const now = this.options.clock.now();
    const recent = this.recent.get(cacheKey);
    if (recent !== undefined && recent.expiresAt > now) return recent.data as T;
    const hit = await this.options.cache.getEntry<T>(cacheKey).catch((error: unknown) => {
      logger.warn('lookup cache read failed', { error: String(error) });
      return undefined;
    });
    if (hit === undefined) return undefined;
    this.recent.set(cacheKey, { data: hit.value, expiresAt: hit.expiresAt ?? now + RECENT_FALLBACK_MS });
    return hit.value;
  }

  private lookupFor(kind: LookupKind): Lookup {
    const lookup = this.lookups.get(kind);
    if (lookup === undefined) throw new DossierError('ERR_NOT_IMPLEMENTED', `The ${kind} lookup is not available.`);
    return lookup;
  }

  private async runWithDeadline(lookup: Lookup, target: string, logger: Logger): Promise<{ data: unknown; ttlSeconds: number }> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new DossierError(
          'ERR_UPSTREAM_TIMEOUT',
          `The ${lookup.kind} lookup of ${target} did not finish within ${this.options.timeoutMs} ms.`,
        );
        controller.abort(error);
        reject(error);
      }, this.options.timeoutMs);
    });
    try {
      return await Promise.race([lookup.run(target, controller.signal, logger), deadline]);
    } catch (error) {
      if (error instanceof DossierError) throw error;
      throw new DossierError('ERR_UPSTREAM_FAILED', `The ${lookup.kind} lookup of ${target} failed.`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}
