import { createHash, randomBytes } from 'node:crypto';
import type { SecureContext } from 'node:tls';
import { EventEmitter } from 'node:events';
import { DossierError, isDossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { DnsResolver } from '../ports/dns-resolver.js';
import type { Logger } from '../ports/logger.js';
import type { LookupService } from '../ports/lookup-service.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { WatchJobHandlers, WatchJobs } from '../ports/watch-jobs.js';
import { withOwnResolver } from '../lookup/net/reach.js';
import type { TargetGuard } from '../ports/target-guard.js';
import { withLease } from '../stores/shared/lease.js';
import { FRESH_MEMORY } from './detect/detection.js';
import { judgeCheck, type CheckResult } from './detect/judge.js';
import type { KeyvWatchStore, StoredDelivery, StoredWatch } from './keyv-watch-store.js';
import { newSigningSecret, signatureHeaders } from './signature.js';
import type {
  CreatedWatch,
  Delivery,
  NewWatch,
  Watch,
  WatchEvent,
  WatchEventType,
  WatchListener,
  WatchOwner,
  WatchService,
} from '../ports/watches.js';
import { checkNewWatch } from './watch-rules.js';
import { postWebhook } from './webhook-post.js';

/** The pauses before the attempts after the first, in ms: about 30 s, 5 min, 30 min, 2 h and 8 h. */
export const RETRY_DELAYS_MS = [30_000, 300_000, 1_800_000, 7_200_000, 28_800_000] as const;
/** How long one attempt may take before it counts as failed (CONTRACT.md §11). */
export const ATTEMPT_DEADLINE_MS = 10_000;

/** What the watch service is built from. */
export interface WatchServiceOptions {
  store: KeyvWatchStore;
  /** The store's counters, for the leases that keep one check of a watch at a time. */
  counters: CounterStore;
  lookups: LookupService;
  jobs: WatchJobs;
  clock: Clock;
  /** The resolver of one delivery's connection, and the rules its addresses are held to. */
  createResolver: () => DnsResolver;
  guard: TargetGuard;
  /** The most watches one key may hold (`DOSSIER_WATCHES_PER_KEY`). */
  watchesPerKey: number;
  telemetry: Required<Pick<Telemetry, 'watchCheck' | 'webhookDelivery'>>;
  logger: Logger;
  /** How long one attempt may take before it counts as failed, in ms. @default 10000 ({@link ATTEMPT_DEADLINE_MS}) */
  attemptDeadlineMs?: number;
  /** Whom an `https` webhook's certificate must chain to (`sslCaCertificates` added to Node's roots). @default Node's roots */
  secureContext?: SecureContext;
}

/** The owner of the watches an embedding app makes without naming one. */
export const DEFAULT_OWNER = 'default';

/**
 * The {@link WatchService} on the store's Keyv values and counters (CONTRACT.md §11). The rules
 * (baselines, thresholds once, failures counted) are in `detect/`; where the work runs is the
 * {@link WatchJobs} engine's business.
 */
export class KeyvWatchService implements WatchService {
  private readonly events = new EventEmitter();

  constructor(private readonly options: WatchServiceOptions) {
    options.jobs.attach({
      check: (watchId) => this.runCheck(watchId),
      attempt: (deliveryId) => this.attempt(deliveryId),
      outstanding: () => this.outstanding(),
    });
  }

  /**
   * Creates a watch; its first check runs at once.
   * @throws DossierValidationError `ERR_WATCH_INVALID` for a bad field or a key with no place left;
   *   `ERR_STORE_UNAVAILABLE`
   */
  async create(input: NewWatch, { webhookRequired = false }: { webhookRequired?: boolean } = {}): Promise<CreatedWatch> {
    const { store, lookups, clock, guard, watchesPerKey, jobs } = this.options;
    const checked = checkNewWatch(input, lookups, { webhookRequired, allowPrivate: guard.allowPrivate });
    const owner = input.owner ?? DEFAULT_OWNER;
    const keyId = input.keyId ?? owner;
    if (!(await store.takePlace(keyId, watchesPerKey))) {
      throw new DossierError(
        'ERR_WATCH_INVALID',
        `This key holds ${watchesPerKey} watches already, the most it may; remove one first.`,
      );
    }
    const now = clock.now();
    const watch: StoredWatch = {
      id: `wat_${randomBytes(8).toString('hex')}`,
      ...checked,
      createdAt: new Date(now).toISOString(),
      lastCheckedAt: null,
      nextCheckAt: new Date(now).toISOString(),
      lastError: null,
      keyId,
      owner,
      secret: newSigningSecret(),
      memory: FRESH_MEMORY,
    };
    try {
      await store.insert(watch);
    } catch (error) {
      await store.givePlace(keyId).catch(() => {});
      throw error;
    }
    try {
      await jobs.schedule(watch.id, watch.intervalSeconds * 1000);
    } catch (error) {
      // A watch its engine never heard of would never be checked: the creation is undone, place and all.
      if (await store.remove(watch.id).catch(() => false)) await store.givePlace(keyId).catch(() => {});
      throw error;
    }
    return { watch: publicWatch(watch), secret: watch.secret };
  }

  /** The owner's watches, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async list({ owner = DEFAULT_OWNER }: WatchOwner = {}): Promise<Watch[]> {
    return (await this.options.store.ofOwner(owner)).map(publicWatch);
  }

  /** One of the owner's watches. @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE` */
  async get(id: string, who: WatchOwner = {}): Promise<Watch> {
    return publicWatch(await this.owned(id, who));
  }

  /**
   * Removes one of the owner's watches: no check and no delivery after it.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  async remove(id: string, who: WatchOwner = {}): Promise<void> {
    const watch = await this.owned(id, who);
    await this.options.jobs.unschedule(id);
    // Under the watch's lease: a check that runs now finishes before, and the next one finds nothing.
    const removed = await withLease(this.options.counters, leaseOf(id), () => this.options.store.remove(id));
    if (removed) await this.options.store.givePlace(watch.keyId);
  }

  /**
   * Runs a check of one of the owner's watches now, beside its schedule.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  async check(id: string, who: WatchOwner = {}): Promise<Watch> {
    const watch = await this.owned(id, who);
    await this.options.jobs.checkNow(id);
    return publicWatch(watch);
  }

  /** The last 50 deliveries of one of the owner's watches, newest first. @throws as {@link get} */
  async deliveries(id: string, who: WatchOwner = {}): Promise<Delivery[]> {
    await this.owned(id, who);
    return (await this.options.store.deliveries(id)).map(publicDelivery);
  }

  /**
   * Calls `listener` with every event of `type` (`'*'` for all) that a check run by this process
   * finds, webhook or not. Returns how to stop listening.
   */
  on(type: WatchEventType | '*', listener: WatchListener): () => void {
    this.events.on(type, listener);
    return () => this.events.off(type, listener);
  }

  /**
   * One check, under the watch's lease so that two never judge the same memory. Its deliveries are
   * stored and handed to the engine before the watch's new memory is saved, and their ids come from
   * the memory they were judged against: a check cut off by a process that died is run again by the
   * engine, finds the same events under the same ids, and so neither loses nor repeats one.
   */
  async runCheck(watchId: string): Promise<void> {
    const { store, counters, lookups, clock, telemetry, jobs } = this.options;
    const found = await withLease(counters, leaseOf(watchId), async () => {
      const watch = await store.get(watchId);
      if (watch === undefined) return [];
      let result: CheckResult;
      try {
        result = { ok: true, data: (await lookups.lookup(watch.type, watch.domain, { fresh: true })).data };
      } catch (error) {
        // The store failing is not the watched domain failing: the check did not happen.
        if (!isDossierError(error) || error.code === 'ERR_STORE_UNAVAILABLE') throw error;
        result = { ok: false, error };
      }
      telemetry.watchCheck(watch.type, result.ok ? 'success' : 'failure');
      const now = clock.now();
      const verdict = judgeCheck(watch.type, watch.memory, result, now);
      const timestamp = new Date(now).toISOString();
      const payloads = verdict.events.map((event): WatchEvent => ({
        type: event.type,
        watch_id: watch.id,
        domain: watch.domain,
        timestamp,
        data: event.data,
      }));
      if (watch.webhookUrl !== null) {
        for (const payload of payloads) {
          const id = deliveryId(watch, payload.type);
          if ((await store.getDelivery(id)) === undefined) {
            await store.insertDelivery({
              id,
              event: payload.type,
              createdAt: timestamp,
              status: 'pending',
              attempts: 0,
              responseStatus: null,
              nextAttemptAt: timestamp,
              watchId: watch.id,
              body: JSON.stringify(payload),
            });
          }
          await jobs.deliver(id);
        }
      }
      await store.save({
        ...watch,
        memory: verdict.memory,
        lastCheckedAt: timestamp,
        nextCheckAt: new Date(now + watch.intervalSeconds * 1000).toISOString(),
        lastError: result.ok ? null : result.error.message,
      });
      return payloads;
    });
    for (const payload of found) this.emit(payload);
  }

  /** One attempt of a delivery; the pause before the next, or `null` when it is over. */
  async attempt(deliveryId: string): Promise<number | null> {
    const { store, clock, telemetry, guard, createResolver, logger } = this.options;
    const delivery = await store.getDelivery(deliveryId);
    if (delivery === undefined || delivery.status !== 'pending') return null;
    const watch = await store.get(delivery.watchId);
    // Its watch is gone: one still listed went with it; this one had left the list with attempts to make.
    if (watch === undefined) await store.forgetDelivery(deliveryId);
    if (watch === undefined || watch.webhookUrl === null) return null;
    const url = watch.webhookUrl;
    const signal = AbortSignal.timeout(this.options.attemptDeadlineMs ?? ATTEMPT_DEADLINE_MS);
    let status: number | null = null;
    try {
      status = await withOwnResolver(createResolver, signal, (resolver) =>
        postWebhook({
          url,
          body: delivery.body,
          headers: signatureHeaders(watch.secret, delivery.id, delivery.body, clock.now()),
          reach: { resolver, guard, signal },
          secureContext: this.options.secureContext,
        }),
      );
    } catch (error) {
      if (!isDossierError(error)) throw error;
      logger.warn('webhook attempt failed', { delivery: delivery.id, watch: watch.id, message: error.message });
    }
    const attempts = delivery.attempts + 1;
    const delivered = status !== null && status >= 200 && status < 300;
    const retryIn = delivered ? undefined : RETRY_DELAYS_MS[attempts - 1];
    const outcome = delivered ? 'delivered' : retryIn === undefined ? 'failed' : 'retry';
    await store.saveDelivery({
      ...delivery,
      attempts,
      responseStatus: status,
      status: outcome === 'retry' ? 'pending' : outcome,
      nextAttemptAt: retryIn === undefined ? null : new Date(clock.now() + retryIn).toISOString(),
    });
    telemetry.webhookDelivery(outcome);
    return retryIn ?? null;
  }

  /** Every watch and every pending delivery of the store, for an engine that keeps no schedule itself. */
  private async outstanding(): ReturnType<WatchJobHandlers['outstanding']> {
    const watches = await this.options.store.all();
    const deliveries: { id: string; at: number }[] = [];
    for (const watch of watches) {
      for (const delivery of await this.options.store.deliveries(watch.id)) {
        if (delivery.status === 'pending' && delivery.nextAttemptAt !== null) {
          deliveries.push({ id: delivery.id, at: Date.parse(delivery.nextAttemptAt) });
        }
      }
    }
    return {
      watches: watches.map((watch) => ({
        id: watch.id,
        intervalMs: watch.intervalSeconds * 1000,
        nextCheckAt: Date.parse(watch.nextCheckAt),
      })),
      deliveries,
    };
  }

  private emit(event: WatchEvent): void {
    for (const name of [event.type, '*']) {
      for (const listener of this.events.listeners(name)) {
        try {
          (listener as WatchListener)(event);
        } catch (error) {
          this.options.logger.warn('watch listener failed', { message: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  }

  private async owned(id: string, { owner = DEFAULT_OWNER }: WatchOwner): Promise<StoredWatch> {
    const watch = typeof id === 'string' && /^wat_[0-9a-f]{16}$/.test(id) ? await this.options.store.get(id) : undefined;
    if (watch === undefined || watch.owner !== owner) throw new DossierError('ERR_WATCH_NOT_FOUND', 'There is no such watch.');
    return watch;
  }
}

/**
 * The id of the delivery of one event of the check that judges `watch` as it is stored now: the same
 * for a check run again after it was cut off, another for the next check (a check that announces
 * something always leaves a different memory, and a later time).
 */
function deliveryId(watch: StoredWatch, event: WatchEventType): string {
  const judged = `${watch.id}|${watch.lastCheckedAt ?? 'first'}|${JSON.stringify(watch.memory)}|${event}`;
  return `msg_${createHash('sha256').update(judged).digest('hex').slice(0, 24)}`;
}

function leaseOf(watchId: string): string {
  return `watch-check:${watchId}`;
}

/** A watch without what only the core reads (its secret, its memory). */
export function publicWatch({ secret: _secret, memory: _memory, ...watch }: StoredWatch): Watch {
  return watch;
}

/** A delivery as its owner sees it. */
function publicDelivery({ id, event, createdAt, status, attempts, responseStatus, nextAttemptAt }: StoredDelivery): Delivery {
  return { id, event, createdAt, status, attempts, responseStatus, nextAttemptAt };
}
