import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { WatchJobHandlers, WatchJobs } from '../../ports/watch-jobs.js';

/**
 * The longest real pause between two looks at what is due: time is the Clock's, which a test (or a
 * corrected system clock) may move, so a timer set for a far instant is not trusted to fire on time.
 */
const LOOK_EVERY_MS = 1000;

/**
 * How often a running engine reads the store again for what another process added (a `dossier serve`
 * with `DOSSIER_WORKERS=false` beside a `dossier worker`, on one SQLite file), in real milliseconds.
 */
const RESYNC_EVERY_MS = 5000;

/** One piece of work and when it is due (ms since the epoch, on the Clock). */
interface Due {
  at: number;
  run: () => Promise<void>;
}

/**
 * The engine of a store one process runs the work of (SQLite, memory): timers of this process, on the
 * Clock. What is due is kept in the store (each watch's next check, each delivery's next attempt), so a
 * restarted process takes up where the last one stopped, including deliveries that fell due meanwhile,
 * and a running one finds what another process added within {@link RESYNC_EVERY_MS}.
 */
export class TimerWatchJobs implements WatchJobs {
  private readonly due = new Map<string, Due>();
  private readonly running = new Set<Promise<void>>();
  private handlers: WatchJobHandlers | undefined;
  private started = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  attach(handlers: WatchJobHandlers): void {
    this.handlers = handlers;
  }

  async start(): Promise<void> {
    if (this.started || this.closed) return;
    this.started = true;
    await this.resync();
    this.resyncTimer = setInterval(() => void this.resync().catch((error: unknown) => this.failed(error)), RESYNC_EVERY_MS);
    this.resyncTimer.unref();
  }

  /**
   * Reads the store for watches and pending deliveries this process does not know yet, and forgets the
   * checks of watches that are gone.
   */
  async resync(): Promise<void> {
    if (this.handlers === undefined) return;
    const { watches, deliveries } = await this.handlers.outstanding();
    const present = new Set(watches.map((watch) => checkKey(watch.id)));
    for (const key of this.due.keys()) if (key.startsWith('check:') && !present.has(key)) this.due.delete(key);
    for (const watch of watches) {
      if (!this.due.has(checkKey(watch.id))) this.repeat(watch.id, watch.intervalMs, watch.nextCheckAt);
    }
    for (const delivery of deliveries) {
      if (!this.due.has(deliveryKey(delivery.id))) this.attemptAt(delivery.id, delivery.at);
    }
    this.arm();
  }

  async schedule(watchId: string, intervalMs: number): Promise<void> {
    this.repeat(watchId, intervalMs, this.clock.now());
    this.arm();
  }

  async unschedule(watchId: string): Promise<void> {
    this.due.delete(checkKey(watchId));
  }

  async checkNow(watchId: string): Promise<void> {
    // At once, in this process, even when it runs no scheduled work: nothing else would take it.
    const handlers = this.handlers;
    if (handlers !== undefined) this.track(() => handlers.check(watchId));
  }

  async deliver(deliveryId: string): Promise<void> {
    this.attemptAt(deliveryId, this.clock.now());
    this.arm();
  }

  /**
   * Runs everything due by the Clock now (nothing, in a process that runs no work), and resolves once
   * those runs (not later ones) are over.
   */
  async runDue(): Promise<void> {
    if (!this.started || this.closed) return;
    const now = this.clock.now();
    const runs: Promise<void>[] = [];
    for (const [key, due] of [...this.due]) {
      if (due.at > now) continue;
      this.due.delete(key);
      runs.push(this.track(due.run));
    }
    await Promise.all(runs);
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

  /** A check of `watchId` at `at`, then every `intervalMs` after the one before it started. */
  private repeat(watchId: string, intervalMs: number, at: number): void {
    this.due.set(checkKey(watchId), {
      at,
      run: async () => {
        this.repeat(watchId, intervalMs, Math.max(at + intervalMs, this.clock.now()));
        await this.handlers?.check(watchId);
      },
    });
  }

  private attemptAt(deliveryId: string, at: number): void {
    this.due.set(deliveryKey(deliveryId), {
      at,
      run: async () => {
        const retryIn = (await this.handlers?.attempt(deliveryId)) ?? null;
        if (retryIn !== null && !this.closed) {
          this.attemptAt(deliveryId, this.clock.now() + retryIn);
          this.arm();
        }
      },
    });
  }

  private track(run: () => Promise<void>): Promise<void> {
    const running = run().catch((error: unknown) => this.failed(error));
    this.running.add(running);
    void running.finally(() => this.running.delete(running));
    return running;
  }

  private failed(error: unknown): void {
    this.logger.error('watch job failed', { message: error instanceof Error ? error.message : String(error) });
  }

  /** Sets the one timer for the next look, unless nothing is due or this process runs no scheduled work. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.closed || !this.started || this.due.size === 0) return;
    const next = Math.min(...[...this.due.values()].map((due) => due.at));
    const wait = Math.min(Math.max(0, next - this.clock.now()), LOOK_EVERY_MS);
    this.timer = setTimeout(() => {
      void this.runDue().finally(() => this.arm());
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
