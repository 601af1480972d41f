import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { OutstandingMark, WatchJobHandlers, WatchJobs } from '../../ports/watch-jobs.js';
import { DueQueue, type Due } from './due-queue.js';

/**
 * The longest real pause between two looks at what is due: time is the Clock's, which a test (or a
 * corrected system clock) may move, so a timer set for a far instant is not trusted to fire on time.
 */
const LOOK_EVERY_MS = 1000;

/**
 * How often a running engine asks the store whether another process added or removed work (a `dossier
 * serve` with `DOSSIER_WORKERS=false` beside a `dossier worker`, on one SQLite file), in real
 * milliseconds. Asking is one read of two counters; the lists are read only when those moved.
 */
const RESYNC_EVERY_MS = 5000;

/** How long a check or an attempt that failed for want of the store waits before it is tried again. */
const FAILED_RETRY_MS = 30_000;

/**
 * The most checks and attempts one process runs at once by default (`DOSSIER_WATCH_CONCURRENCY`): the rest
 * wait their turn, so that thousands falling due together (a start after a long stop) do not flood the DNS
 * servers, the peers and the store. Enough for 10,000 DNS checks a minute on every store (docs/watches.md).
 */
export const DEFAULT_WATCH_CONCURRENCY = 32;

/**
 * The engine of a store one process runs the work of (SQLite, memory): timers of this process, on the
 * Clock. What is due is kept in the store (each watch's next check, each delivery's next attempt), and
 * each check and attempt says when it is due again, so a restarted process takes up where the last one
 * stopped, including deliveries that fell due meanwhile, and a running one finds what another process
 * added within {@link RESYNC_EVERY_MS}. Several processes running the work of one file each run every
 * piece: the core's leases and due times make all but one of them a read.
 */
export class TimerWatchJobs implements WatchJobs {
  readonly checksRunOnce = false;
  private readonly due = new DueQueue();
  /** The work running now, by key: not put back on the due list by a resync while it runs. */
  private readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private handlers: WatchJobHandlers | undefined;
  private started = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  /** Where the store's lists stood at the last resync. */
  private mark: OutstandingMark | undefined;

  /**
   * @param concurrency the most checks and attempts run at once (`DOSSIER_WATCH_CONCURRENCY`)
   */
  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly concurrency = DEFAULT_WATCH_CONCURRENCY,
  ) {}

  attach(handlers: WatchJobHandlers): void {
    this.handlers = handlers;
  }

  async start(): Promise<void> {
    if (this.started || this.closed || this.handlers === undefined) return;
    this.started = true;
    await this.handlers.adopt();
    await this.resync();
    this.resyncTimer = setInterval(() => void this.resync().catch((error: unknown) => this.failed(error)), RESYNC_EVERY_MS);
    this.resyncTimer.unref();
  }

  /**
   * Asks the store whether its lists of watches and pending deliveries changed since the last time; if
   * they did, takes up the work this process does not know yet (due at once: the core says when it is
   * really due) and forgets the work that is gone.
   */
  async resync(): Promise<void> {
    if (this.handlers === undefined || !this.started) return;
    const { mark, watches, deliveries } = await this.handlers.outstanding(this.mark);
    const now = this.clock.now();
    if (watches !== undefined) this.follow('check:', watches, (id) => this.checkAt(id, now));
    if (deliveries !== undefined) this.follow('delivery:', deliveries, (id) => this.attemptAt(id, now));
    this.mark = mark;
    this.arm();
  }

  async schedule(watchId: string): Promise<void> {
    if (!this.started) return;
    this.checkAt(watchId, this.clock.now());
    this.arm();
  }

  async unschedule(watchId: string): Promise<void> {
    this.due.delete(checkKey(watchId));
  }

  async checkNow(watchId: string, claim: string): Promise<void> {
    // At once, in this process, even when it runs no scheduled work: nothing else would take it.
    const handlers = this.handlers;
    if (handlers !== undefined) void this.track(() => handlers.check(watchId, claim).then(() => {}));
  }

  async deliver(deliveryId: string): Promise<void> {
    if (!this.started) return;
    this.attemptAt(deliveryId, this.clock.now());
    this.arm();
  }

  /**
   * Runs everything due by the Clock now (nothing, in a process that runs no work), and resolves once
   * those runs (not later ones) are over.
   */
  async runDue(): Promise<void> {
    await Promise.all(this.launchDue());
  }

  /** Resolves once no work runs in this process (what is due later does not count). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.resyncTimer);
    this.due.clear();
    await this.settled();
  }

  /** Starts what is due by the Clock now, `limit` at the most; the runs, each of which ends on its own time. */
  private launchDue(limit = Infinity): Promise<void>[] {
    if (!this.started || this.closed) return [];
    const now = this.clock.now();
    const runs: Promise<void>[] = [];
    for (let taken; runs.length < limit && (taken = this.due.takeDue(now)) !== undefined;) {
      runs.push(this.runKept(taken.key, taken.due));
    }
    return runs;
  }

  /** Keeps the work of `prefix` in step with the store's list `ids`: takes up the new, forgets the gone. */
  private follow(prefix: string, ids: string[], takeUp: (id: string) => void): void {
    const present = new Set(ids.map((id) => prefix + id));
    for (const key of this.due.keys()) if (key.startsWith(prefix) && !present.has(key)) this.due.delete(key);
    for (const id of ids) if (!this.due.has(prefix + id) && !this.inFlight.has(prefix + id)) takeUp(id);
  }

  private checkAt(watchId: string, at: number): void {
    const handlers = this.handlers;
    if (handlers !== undefined) this.due.set(checkKey(watchId), { at, run: () => handlers.check(watchId) });
  }

  private attemptAt(deliveryId: string, at: number): void {
    const handlers = this.handlers;
    if (handlers !== undefined) this.due.set(deliveryKey(deliveryId), { at, run: () => handlers.attempt(deliveryId) });
  }

  /** Runs one piece of due work, and puts it back on the due list for when it says it is due again. */
  private runKept(key: string, due: Due): Promise<void> {
    this.inFlight.add(key);
    return this.track(async () => {
      let next: number | null;
      try {
        next = await due.run();
      } catch (error) {
        this.failed(error);
        next = FAILED_RETRY_MS;
      } finally {
        this.inFlight.delete(key);
      }
      if (next !== null && !this.closed && !this.due.has(key)) this.due.set(key, { at: this.clock.now() + next, run: due.run });
    });
  }

  private track(run: () => Promise<void>): Promise<void> {
    const running = run().catch((error: unknown) => this.failed(error));
    this.running.add(running);
    void running.finally(() => {
      this.running.delete(running);
      // A place is free, and what ran may be due again: the next look.
      this.arm();
    });
    return running;
  }

  private failed(error: unknown): void {
    this.logger.error('watch job failed', { message: error instanceof Error ? error.message : String(error) });
  }

  /**
   * Sets the one timer for the next look, unless nothing is due, this process runs no scheduled work, or
   * every place is taken (the next run to end looks again).
   */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.closed || !this.started || this.due.size === 0 || this.running.size >= this.concurrency) return;
    const wait = Math.min(Math.max(0, this.due.nextAt() - this.clock.now()), LOOK_EVERY_MS);
    // Not waiting for the runs: a slow receiver or upstream holds up nothing else that falls due.
    this.timer = setTimeout(() => {
      this.launchDue(this.concurrency - this.running.size);
      this.arm();
    }, wait);
    // The server's socket or the worker's wait keeps the process alive, not this timer.
    this.timer.unref();
  }
}

function checkKey(watchId: string): string {
  return `check:${watchId}`;
}

function deliveryKey(deliveryId: string): string {
  return `delivery:${deliveryId}`;
}
