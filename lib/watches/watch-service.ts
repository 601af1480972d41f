import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SecureContext } from 'node:tls';
import { EventEmitter } from 'node:events';
import { DossierError, isDossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { DnsResolver } from '../ports/dns-resolver.js';
import type { ApiKey, KeyStatus, KeyStore } from '../ports/key-store.js';
import type { Logger } from '../ports/logger.js';
import type { LookupService } from '../ports/lookup-service.js';
import type { QuotaCharges } from '../ports/metering.js';
import type { QuotaState } from '../ports/quota-store.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { Outstanding, OutstandingMark, WatchJobHandlers, WatchJobs } from '../ports/watch-jobs.js';
import { withOwnResolver } from '../lookup/net/reach.js';
import type { TargetGuard } from '../ports/target-guard.js';
import { keyStatusAt } from '../records/stored-key.js';
import { LEASE_BUSY, withFreeLease, withLease } from '../stores/shared/lease.js';
import { FRESH_MEMORY } from './detect/detection.js';
import { judgeCheck, type CheckResult } from './detect/judge.js';
import type { StoredDelivery, StoredWatch } from './keyv-watch-store.js';
import type { Page, PageQuery, WatchStore } from '../ports/watch-store.js';
import { newSigningSecret, signatureHeaders } from './signature.js';
import type {
  CheckRequest,
  CheckRequester,
  CreatedWatch,
  Delivery,
  NewWatch,
  Watch,
  WatchEvent,
  WatchEventType,
  WatchListener,
  WatchOwner,
  WatchService,
  WatchType,
} from '../ports/watches.js';
import { checkNewWatch } from './watch-rules.js';
import { postWebhook } from './webhook-post.js';

/** The pauses before the attempts after the first, in ms: about 30 s, 5 min, 30 min, 2 h and 8 h. */
export const RETRY_DELAYS_MS = [30_000, 300_000, 1_800_000, 7_200_000, 28_800_000] as const;
/** How long one attempt may take before it counts as failed (docs/contract.md §11). */
export const ATTEMPT_DEADLINE_MS = 10_000;
/**
 * How long an attempt keeps its delivery from other attempts (its next attempt set this far ahead: longer
 * than the attempt's deadline and its writes), and how long a removal waits for a living attempt to end.
 * The attempt's lease is renewed while it lives: a process that dies mid-attempt lets go within a second,
 * and the attempt is made again by another after this.
 */
export const ATTEMPT_LEASE_MS = 20_000;
/** When another process is making an attempt of a delivery: how long before looking at it again. */
const BUSY_RETRY_MS = 10_000;
/** How often a delivery paused with its key's expiry is looked at again. */
export const PAUSED_RETRY_MS = 60_000;
/** How long an on-demand check holds its claim at the most (pending in a queue, then running). */
const ON_DEMAND_CLAIM_MS = 120_000;
/** The watches noted unscheduled at once when every watch is to be scheduled again: a few store calls side by side. */
const ADOPT_BATCH = 50;
/** How long a rotated-out signing secret still signs deliveries, beside the new one: 24 hours. */
export const SECRET_OVERLAP_MS = 86_400_000;

/** What the watch service is built from. */
export interface WatchServiceOptions {
  store: WatchStore<StoredWatch>;
  /** The store's counters, for the leases that keep one check of a watch and one attempt of a delivery at a time. */
  counters: CounterStore;
  lookups: LookupService;
  /**
   * The engine, attached to this service's {@link KeyvWatchService.handlers}; asked for only when there is
   * work to hand it (building it may need an optional package: BullMQ).
   */
  jobs: () => WatchJobs;
  /** The keys, whose state pauses (expired) or ends (revoked) their watches. */
  keys: KeyStore;
  /** The quota rules an on-demand check is paid under. */
  quota: QuotaCharges;
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

/** What one check came to, under the watch's lease. */
interface CheckOutcome {
  /** The ms until the next scheduled check, `null` once the watch is gone. */
  next: number | null;
  /** The watch was not found: its schedule is to go. */
  gone?: boolean;
  /** The events found, for the listeners of this process. */
  events: WatchEvent[];
  /** A watch found with its key revoked, to remove once the lease is given back. */
  orphan?: StoredWatch;
  /** The check made, if one was: reported once it has ended, its claim given back. */
  made?: { type: WatchType; outcome: 'success' | 'failure' };
}

/**
 * The {@link WatchService} on the store's Keyv values and counters (docs/contract.md §11). The rules
 * (baselines, thresholds once, failures counted) are in `detect/`; where the work runs is the
 * {@link WatchJobs} engine's business. What keeps the work once per due time, whatever the engine and
 * the number of processes, is here: a check runs under its watch's lease and only when the watch is
 * due; an attempt runs under its delivery's lease and only when the delivery is due, and is counted
 * before it is made.
 */
export class KeyvWatchService implements WatchService {
  private readonly events = new EventEmitter();
  /** The on-demand checks this process is claiming and charging now, by watch. */
  private readonly claiming = new Map<string, Promise<unknown>>();
  /** How to give back the charge of each on-demand check this process charged and has not run yet, by claim. */
  private readonly charges = new Map<string, () => Promise<unknown>>();

  constructor(private readonly options: WatchServiceOptions) {}

  /** What the engine calls back (see {@link WatchJobs.attach}). */
  readonly handlers: WatchJobHandlers = {
    check: (watchId, claim) => this.runCheck(watchId, claim),
    attempt: (deliveryId) => this.attempt(deliveryId),
    adopt: (options) => this.adopt(options),
    outstanding: (since) => this.outstanding(since),
  };

  /**
   * Creates a watch; its first check runs at once.
   * @throws DossierValidationError `ERR_WATCH_INVALID` for a bad field or a key with no place left;
   *   `ERR_STORE_UNAVAILABLE`
   */
  async create(input: NewWatch, { webhookRequired = false }: { webhookRequired?: boolean } = {}): Promise<CreatedWatch> {
    const { store, lookups, clock, guard, watchesPerKey } = this.options;
    const checked = checkNewWatch(input, lookups, { webhookRequired, allowPrivate: guard.allowPrivate });
    const owner = input.owner ?? DEFAULT_OWNER;
    const now = clock.now();
    const watch: StoredWatch = {
      id: `wat_${randomBytes(8).toString('hex')}`,
      ...checked,
      createdAt: new Date(now).toISOString(),
      lastCheckedAt: null,
      nextCheckAt: new Date(now).toISOString(),
      lastError: null,
      keyId: input.keyId ?? owner,
      owner,
      secret: newSigningSecret(),
      memory: FRESH_MEMORY,
    };
    // Noted first: a creation cut off before its schedule is confirmed is scheduled at the next start.
    await store.markUnscheduled(watch.id);
    let placed: boolean;
    try {
      placed = await store.insert(watch, watchesPerKey);
      if (placed) await this.jobs().schedule(watch.id, watch.intervalSeconds * 1000);
    } catch (error) {
      // A watch its engine never heard of would never be checked: the creation is undone, place and all.
      // Left noted when even that fails, it is scheduled at the next start.
      const undone = await store.remove(watch.id).then(
        () => true,
        () => false,
      );
      if (undone) await store.markScheduled(watch.id).catch(() => {});
      throw error;
    }
    await store.markScheduled(watch.id).catch(() => {});
    if (!placed) {
      throw new DossierError(
        'ERR_WATCH_INVALID',
        `This key holds ${watchesPerKey} watches already, the most it may; remove one first.`,
      );
    }
    return { watch: publicWatch(watch), secret: watch.secret };
  }

  /** The owner's watches, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async list({ owner = DEFAULT_OWNER }: WatchOwner = {}): Promise<Watch[]> {
    return everyPage((page) => this.options.store.ofOwner(owner, page));
  }

  /** A page of the owner's watches, newest first. @throws DossierError `ERR_WATCH_INVALID`, `ERR_STORE_UNAVAILABLE` */
  async page(page: PageQuery, { owner = DEFAULT_OWNER }: WatchOwner = {}): Promise<Page<Watch>> {
    return publicPage(await this.options.store.ofOwner(owner, page));
  }

  /** The watches the key `keyId` created, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async ofKey(keyId: string): Promise<Watch[]> {
    return everyPage((page) => this.options.store.ofKey(keyId, page));
  }

  /** A page of the watches the key `keyId` created, newest first. @throws as {@link page} */
  async pageOfKey(keyId: string, page: PageQuery): Promise<Page<Watch>> {
    return publicPage(await this.options.store.ofKey(keyId, page));
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
    await this.removeWatch(await this.owned(id, who));
  }

  /** Removes a watch whatever its owner. @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE` */
  async removeAny(id: string): Promise<void> {
    await this.removeWatch(await this.found(id));
  }

  /**
   * Removes every watch the key created, in one step of the store; how many. Their schedules are left to
   * undo themselves: a scheduled check that finds its watch gone does nothing and unschedules it
   * ({@link runCheck}), so that a revoke of a key holding 10,000 watches makes no call a watch to the job
   * engine (on BullMQ, a round trip each). Their deliveries still pending are forgotten each once no
   * attempt of it is under way.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async removeOfKey(keyId: string): Promise<number> {
    const { store, counters } = this.options;
    const removed = await store.removeOfKey(keyId);
    const watchOf = new Map<string, string>();
    for (const id of removed.pending) {
      const delivery = await store.getDelivery(id);
      if (delivery !== undefined) watchOf.set(id, delivery.watchId);
    }
    for (const [id, watchId] of watchOf) {
      await withLease(counters, attemptLeaseOf(id), () => store.forgetDelivery({ id, watchId }), {
        waitMs: ATTEMPT_LEASE_MS + 1000,
      });
    }
    return removed.watches.length;
  }

  /**
   * Runs a check of one of the owner's watches now, beside its schedule, counted as one lookup of its
   * type against the paying key's quota; at most one pending or running at a time.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`; DossierQuotaError `ERR_QUOTA_EXCEEDED`
   */
  async check(id: string, who: CheckRequester = {}): Promise<CheckRequest> {
    const { counters, quota: rules } = this.options;
    const watch = await this.owned(id, who);
    const standing = await this.standing(watch.keyId);
    const payer = who.key ?? (standing?.status === 'active' ? standing.key : undefined);
    const idle = async (): Promise<CheckRequest> => ({
      watch: publicWatch(watch),
      started: false,
      quota: payer === undefined ? null : await rules.peek(payer),
    });
    // A paused watch is not checked, on demand either; a revoked key's watch is as good as gone.
    if (standing !== null && standing.status !== 'active') return idle();
    // A request that comes while this process is claiming and charging a check of the watch waits for
    // that step: finding the claim taken, it reads the quota once the check has counted, not between.
    const claiming = this.claiming.get(id);
    if (claiming !== undefined) await claiming.catch(() => {});
    const claim = randomUUID();
    const claimed = this.claimAndCharge(id, claim, payer, watch.type);
    this.claiming.set(id, claimed);
    let quota: QuotaState | null;
    try {
      const outcome = await claimed;
      if (outcome === undefined) return idle();
      quota = outcome.quota;
    } finally {
      if (this.claiming.get(id) === claimed) this.claiming.delete(id);
    }
    try {
      if (quota !== null && !quota.allowed) throw rules.quotaExceeded(quota);
      const refund = async (): Promise<void> => {
        if (payer !== undefined && quota !== null) await rules.refund(payer, quota, watch.type);
      };
      this.charges.set(claim, refund);
      try {
        await this.jobs().checkNow(id, claim);
      } catch (error) {
        // Nothing runs: nothing counts.
        this.charges.delete(claim);
        await refund();
        throw error;
      }
    } catch (error) {
      await counters.releaseLease(claimOf(id), claim).catch(() => {});
      throw error;
    }
    return { watch: publicWatch(watch), started: true, quota };
  }

  /** Claims the on-demand check of the watch and charges its payer, or says the claim is taken. */
  private async claimAndCharge(
    id: string,
    claim: string,
    payer: ApiKey | undefined,
    type: StoredWatch['type'],
  ): Promise<{ quota: QuotaState | null } | undefined> {
    const { counters, quota: rules } = this.options;
    if (!(await counters.acquireLease(claimOf(id), claim, ON_DEMAND_CLAIM_MS))) return undefined;
    try {
      return { quota: payer === undefined ? null : await rules.charge(payer, type) };
    } catch (error) {
      await counters.releaseLease(claimOf(id), claim).catch(() => {});
      throw error;
    }
  }

  /**
   * Gives one of the owner's watches a new signing secret; the old one signs beside it for 24 hours.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  async rotateSecret(id: string, who: WatchOwner = {}): Promise<CreatedWatch> {
    const { store, counters, clock } = this.options;
    await this.owned(id, who);
    // Under the watch's lease: a check saving the watch meanwhile would write the old secret back.
    return withLease(counters, leaseOf(id), async () => {
      const watch = await this.owned(id, who);
      const rotated: StoredWatch = {
        ...watch,
        secret: newSigningSecret(),
        previousSecret: { secret: watch.secret, until: clock.now() + SECRET_OVERLAP_MS },
      };
      await store.save(rotated);
      return { watch: publicWatch(rotated), secret: rotated.secret };
    });
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

  private jobs(): WatchJobs {
    return this.options.jobs();
  }

  /**
   * One check, under the watch's lease so that two never judge the same memory. A scheduled check of a
   * watch that is not due (another process has just checked it) or paused (its key expired) is not made;
   * a watch whose key was revoked is removed. Its deliveries are stored and handed
   * to the engine before the watch's new memory is saved, and their ids come from the memory they were
   * judged against: a check cut off by a process that died is run again by the engine, finds the same
   * events under the same ids, and so neither loses nor repeats one. An on-demand check (`claim`) keeps
   * the schedule as it is, and gives its claim back when it ends.
   */
  async runCheck(watchId: string, claim?: string): Promise<number | null> {
    const { store, counters, clock, telemetry } = this.options;
    let made: CheckOutcome['made'];
    try {
      if (claim !== undefined) {
        // Held again from now: the claim's time counts from when the check begins, not from when it was asked.
        await counters.acquireLease(claimOf(watchId), claim, ON_DEMAND_CLAIM_MS);
      } else if (!this.jobs().checksRunOnce) {
        // Read without the lease first: a watch another process checked costs one read.
        const seen = await store.get(watchId);
        if (seen === undefined) {
          await this.jobs().unschedule(watchId);
          return null;
        }
        const wait = notDueFor(seen, clock.now());
        if (wait > 0) return wait;
      }
      const outcome = await withLease(counters, leaseOf(watchId), () => this.checkLeased(watchId, claim !== undefined));
      // Gone (removed with its key in one step, or by a process that died before unscheduling it).
      if (outcome.gone === true) await this.jobs().unschedule(watchId);
      made = outcome.made;
      if (outcome.orphan !== undefined) await this.removeWatch(outcome.orphan);
      for (const event of outcome.events) this.emit(event);
      return outcome.next;
    } catch (error) {
      // An on-demand check the store kept from being made counts nothing (its charge given back before
      // its claim, so that the next one asked is charged after the refund). Its engine does not run it
      // again (BullMQ: one attempt), and the next one asked starts.
      if (claim !== undefined && made === undefined)
        await this.charges
          .get(claim)?.()
          .catch(() => {});
      throw error;
    } finally {
      if (claim !== undefined) this.charges.delete(claim);
      if (claim !== undefined) await counters.releaseLease(claimOf(watchId), claim).catch(() => {});
      // Once the check has ended, claim included: whoever hears of it may ask for the next one.
      if (made !== undefined) telemetry.watchCheck(made.type, made.outcome);
    }
  }

  private async checkLeased(watchId: string, onDemand: boolean): Promise<CheckOutcome> {
    const { store, lookups, clock } = this.options;
    const watch = await store.get(watchId);
    if (watch === undefined) return { next: null, events: [], gone: true };
    const interval = watch.intervalSeconds * 1000;
    const started = clock.now();
    if (!onDemand && notDueFor(watch, started) > 0) return { next: notDueFor(watch, started), events: [] };
    const standing = await this.standing(watch.keyId);
    if (standing?.status === 'revoked') return { next: null, events: [], orphan: watch };
    if (standing?.status === 'expired') return { next: interval, events: [] };
    let result: CheckResult;
    try {
      result = { ok: true, data: (await lookups.lookup(watch.type, watch.domain, { fresh: true })).data };
    } catch (error) {
      // The store failing is not the watched domain failing: the check did not happen.
      if (!isDossierError(error) || error.code === 'ERR_STORE_UNAVAILABLE') throw error;
      result = { ok: false, error };
    }
    const now = clock.now();
    const verdict = judgeCheck(watch.type, watch.memory, result, now);
    const timestamp = new Date(now).toISOString();
    const events = verdict.events.map((event): WatchEvent => ({
      type: event.type,
      watch_id: watch.id,
      domain: watch.domain,
      timestamp,
      data: event.data,
    }));
    if (watch.webhookUrl !== null) {
      for (const event of events) {
        const id = deliveryId(watch, event.type);
        if ((await store.getDelivery(id)) === undefined) {
          await store.insertDelivery({
            id,
            event: event.type,
            createdAt: timestamp,
            status: 'pending',
            attempts: 0,
            responseStatus: null,
            nextAttemptAt: timestamp,
            watchId: watch.id,
            body: JSON.stringify(event),
          });
        }
        await this.jobs().deliver(id);
      }
    }
    // An interval from when it started, as a scheduler counts it; an on-demand check keeps the schedule.
    const nextCheckAt = onDemand ? watch.nextCheckAt : new Date(started + interval).toISOString();
    await store.save({
      ...watch,
      memory: verdict.memory,
      lastCheckedAt: timestamp,
      nextCheckAt,
      lastError: result.ok ? null : result.error.message,
    });
    return {
      next: Math.max(0, Date.parse(nextCheckAt) - now),
      events,
      made: { type: watch.type, outcome: result.ok ? 'success' : 'failure' },
    };
  }

  /**
   * One attempt of a delivery, under the delivery's lease, if it is due: counted (and its next attempt
   * set for when the lease is over) before it is made, so that a process dying mid-attempt leaves it
   * counted and due again soon; then its outcome. Nothing is sent for a delivery paused with its key's
   * expiry, and a delivery whose watch or key is gone is forgotten.
   * @returns the ms until the delivery is to be looked at again, or `null` when it is over.
   */
  async attempt(deliveryId: string): Promise<number | null> {
    const { store, counters, clock } = this.options;
    const seen = await store.getDelivery(deliveryId);
    if (seen === undefined || seen.status !== 'pending') return null;
    // Read without the lease first: a delivery another process attempted costs one read.
    const wait = notDueAt(seen, clock.now());
    if (wait > 0) return wait;
    let orphan: StoredWatch | undefined;
    // Held while the attempt lives (renewed), and let go within a second of a process that dies in it: a
    // removal waits for a living attempt, never for a dead one.
    const attempted = await withFreeLease(counters, attemptLeaseOf(deliveryId), async () => {
      const delivery = await store.getDelivery(deliveryId);
      if (delivery === undefined || delivery.status !== 'pending') return null;
      if (notDueAt(delivery, clock.now()) > 0) return notDueAt(delivery, clock.now());
      const watch = await store.get(delivery.watchId);
      if (watch === undefined || watch.webhookUrl === null) {
        await store.forgetDelivery(delivery);
        return null;
      }
      const standing = await this.standing(watch.keyId);
      if (standing?.status === 'revoked') {
        orphan = watch;
        return null;
      }
      if (standing?.status === 'expired') return PAUSED_RETRY_MS;
      return await this.post(delivery, watch, watch.webhookUrl);
    }).finally(async () => {
      if (orphan !== undefined) await this.removeWatch(orphan);
    });
    return attempted === LEASE_BUSY ? BUSY_RETRY_MS : attempted;
  }

  /** Makes the attempt (counted first) and records its outcome; the ms until the next, or `null`. */
  private async post(delivery: StoredDelivery, watch: StoredWatch, url: string): Promise<number | null> {
    const { store, clock, telemetry, guard, createResolver, logger } = this.options;
    const attempts = delivery.attempts + 1;
    const startedAt = clock.now();
    await store.saveDelivery({ ...delivery, attempts, nextAttemptAt: new Date(startedAt + ATTEMPT_LEASE_MS).toISOString() });
    const signal = AbortSignal.timeout(this.options.attemptDeadlineMs ?? ATTEMPT_DEADLINE_MS);
    let status: number | null = null;
    try {
      status = await withOwnResolver(createResolver, signal, (resolver) =>
        postWebhook({
          url,
          body: delivery.body,
          headers: signatureHeaders(signingSecrets(watch, startedAt), delivery.id, delivery.body, startedAt),
          reach: { resolver, guard, signal },
          secureContext: this.options.secureContext,
        }),
      );
    } catch (error) {
      if (!isDossierError(error)) throw error;
      logger.warn('webhook attempt failed', { delivery: delivery.id, watch: watch.id, message: error.message });
    }
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

  /**
   * Removes a watch: its schedule, then (under its lease, so that a check running now finishes first)
   * its record, then its deliveries: those over at once, each pending one under its delivery's lease, so
   * that an attempt being made now ends first and none begins after (a lease that a process died holding
   * lets go within a second: see {@link attempt}).
   */
  private async removeWatch(watch: StoredWatch): Promise<void> {
    const { store, counters } = this.options;
    await this.jobs().unschedule(watch.id);
    await withLease(counters, leaseOf(watch.id), () => store.remove(watch.id));
    for (const id of await store.forgetDeliveriesOver(watch.id)) {
      await withLease(counters, attemptLeaseOf(id), () => store.forgetDelivery({ id, watchId: watch.id }), {
        waitMs: ATTEMPT_LEASE_MS + 1000,
      });
    }
  }

  /**
   * Lists anew what an older Dossier listed its own way (once); schedules the watches whose schedule
   * was never confirmed (and forgets the note of those gone), every watch with `everyWatch` (each noted
   * first, so that a start cut off half-way schedules the rest at the next); and hands every pending
   * delivery to the engine again: one it has already stays as it is, one whose job was lost (given up
   * while the store was down) is attempted again.
   */
  private async adopt({ everyWatch = false }: { everyWatch?: boolean } = {}): Promise<void> {
    const { store } = this.options;
    await store.adoptOldLists();
    if (everyWatch) {
      const ids = await store.allIds();
      for (let start = 0; start < ids.length; start += ADOPT_BATCH) {
        await Promise.all(ids.slice(start, start + ADOPT_BATCH).map((id) => store.markUnscheduled(id)));
      }
    }
    for (const id of await store.unscheduled()) {
      const watch = await store.get(id);
      if (watch !== undefined) await this.jobs().schedule(id, watch.intervalSeconds * 1000);
      await store.markScheduled(id);
    }
    for (const delivery of await store.pendingDeliveries()) await this.jobs().deliver(delivery.id);
  }

  /** The ids of every watch and pending delivery, or only of the lists changed since `since`. */
  private async outstanding(since?: OutstandingMark): Promise<Outstanding> {
    const { store } = this.options;
    const mark = await store.changes();
    return {
      mark,
      ...(since?.watches === mark.watches ? {} : { watches: await store.allIds() }),
      ...(since?.deliveries === mark.deliveries ? {} : { deliveries: (await store.pendingDeliveries()).map(({ id }) => id) }),
    };
  }

  /** Where the key that created a watch stands; `null` for a watch made without a key of the store. */
  private async standing(keyId: string): Promise<{ status: KeyStatus; key: ApiKey } | null> {
    try {
      const key = await this.options.keys.get(keyId);
      return { status: keyStatusAt(key, this.options.clock.now()), key };
    } catch (error) {
      if (isDossierError(error, 'ERR_KEY_NOT_FOUND')) return null;
      throw error;
    }
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
    const watch = await this.found(id);
    if (watch.owner !== owner) throw notFound();
    return watch;
  }

  private async found(id: string): Promise<StoredWatch> {
    const watch = typeof id === 'string' && /^wat_[0-9a-f]{16}$/.test(id) ? await this.options.store.get(id) : undefined;
    if (watch === undefined) throw notFound();
    return watch;
  }
}

function notFound(): DossierError {
  return new DossierError('ERR_WATCH_NOT_FOUND', 'There is no such watch.');
}

/** How early a scheduled check may run: an engine's slots drift from the checks' own times by about a check's length. */
const DUE_EARLY_MS = 60_000;

/**
 * The ms until a watch's next scheduled check is due, 0 when it is due now (or within
 * {@link DUE_EARLY_MS}, and less than half an interval away): a watch another process has just checked
 * is not due again for about an interval.
 */
function notDueFor(watch: StoredWatch, now: number): number {
  const wait = Date.parse(watch.nextCheckAt) - now;
  return wait > Math.min(DUE_EARLY_MS, (watch.intervalSeconds * 1000) / 2) ? wait : 0;
}

/** The ms until a delivery's next attempt is due, 0 when it is due now. */
function notDueAt(delivery: StoredDelivery, now: number): number {
  return delivery.nextAttemptAt === null ? 0 : Math.max(0, Date.parse(delivery.nextAttemptAt) - now);
}

/** The secrets a delivery made at `now` is signed with: the watch's own, and a rotated-out one for its last 24 hours. */
function signingSecrets(watch: StoredWatch, now: number): string[] {
  const previous = watch.previousSecret;
  return previous !== undefined && previous.until > now ? [watch.secret, previous.secret] : [watch.secret];
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

/** The lease a check of the watch holds (and what waits for one to end). */
function leaseOf(watchId: string): string {
  return `watch-check:${watchId}`;
}

/** The lease of the on-demand check of a watch that is pending or running. */
function claimOf(watchId: string): string {
  return `watch-check-now:${watchId}`;
}

/** The lease an attempt of the delivery holds. */
export function attemptLeaseOf(deliveryId: string): string {
  return `delivery-attempt:${deliveryId}`;
}

/** A watch without what only the core reads (its secrets, its memory). */
export function publicWatch({ secret: _secret, previousSecret: _previous, memory: _memory, ...watch }: StoredWatch): Watch {
  return watch;
}

/** A delivery as its owner sees it. */
function publicDelivery({ id, event, createdAt, status, attempts, responseStatus, nextAttemptAt }: StoredDelivery): Delivery {
  return { id, event, createdAt, status, attempts, responseStatus, nextAttemptAt };
}

/** Every item of a list read a page at a time. */
async function everyPage(read: (page: PageQuery) => Promise<Page<StoredWatch>>): Promise<Watch[]> {
  const watches: Watch[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await read({ limit: 500, ...(cursor === undefined ? {} : { cursor }) });
    watches.push(...page.items.map(publicWatch));
    if (page.nextCursor === null) return watches;
    cursor = page.nextCursor;
  }
}

/** A page of records as their owner sees them. */
function publicPage(page: Page<StoredWatch>): Page<Watch> {
  return { ...page, items: page.items.map(publicWatch) };
}
