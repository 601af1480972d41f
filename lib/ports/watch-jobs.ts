/** How often the store's lists of watches and of pending deliveries had changed, at one reading. */
export interface OutstandingMark {
  watches: number;
  deliveries: number;
}

/** What the store holds that falls due some time, for an engine that keeps no schedule of its own. */
export interface Outstanding {
  /** Where the lists stood: handed back to the next call, which then reads only what changed since. */
  mark: OutstandingMark;
  /** Every watch's id, when the list of watches changed since the mark given (else absent). */
  watches?: string[];
  /** Every pending delivery's id, when that list changed since the mark given (else absent). */
  deliveries?: string[];
}

/**
 * What the job engine calls back: the core's own work, run when the engine says it is due. The core
 * makes each safe to run more than once and in several processes at the same time: a check or an
 * attempt that is not due (another process made it) is not made, and answers when it is due.
 */
export interface WatchJobHandlers {
  /**
   * Runs one check of a watch: a scheduled one (skipped when the watch is not due, or paused while its
   * key is expired), or the on-demand check that `claim` stands for (see `WatchJobs.checkNow`).
   * @returns the ms until the watch's next scheduled check is due, or `null` when the watch is gone.
   */
  check(watchId: string, claim?: string): Promise<number | null>;
  /**
   * Makes the next attempt of a delivery, if it is due and no other process is making one.
   * @returns the ms until it should be looked at again, or `null` when the delivery is over (delivered,
   *   failed for good, or its watch removed: then its record is forgotten).
   */
  attempt(deliveryId: string): Promise<number | null>;
  /**
   * Schedules the watches whose schedule was never confirmed (a creation that failed half-way): called by
   * `start()`. With `everyWatch`, every watch of the store first (an engine that found its schedules
   * lost: a queue renamed, emptied by hand).
   */
  adopt(options?: { everyWatch?: boolean }): Promise<void>;
  /**
   * For an engine that keeps nothing itself: the ids of every watch and every pending delivery, or only
   * of the lists that changed since `since` (one read of the store when nothing did).
   */
  outstanding(since?: OutstandingMark): Promise<Outstanding>;
}

/**
 * Where checks and deliveries run (docs/contract.md §11): BullMQ on a Redis or PostgreSQL store, timers of
 * this process on SQLite or memory. The core says what is due; the engine makes sure each check runs
 * once per interval and each attempt once, across every process sharing the store.
 */
export interface WatchJobs {
  /** Tells the engine what its work is: called once, before `start()`, whether this process runs work or not. */
  attach(handlers: WatchJobHandlers): void;
  /**
   * Starts running the checks and deliveries that fall due, in this process (a server or a worker),
   * and adopts the watches whose schedule was never confirmed. Without it, this process only hands work
   * to the processes that run it. Idempotent.
   */
  start(): Promise<void>;
  /** Checks a watch every `intervalMs`, the first time at once. Replaces the watch's schedule if it had one. */
  schedule(watchId: string, intervalMs: number): Promise<void>;
  /** Stops checking a watch. (Its deliveries' attempts still waiting find it gone: see `attempt`.) */
  unschedule(watchId: string): Promise<void>;
  /** Runs one on-demand check of a watch now, beside its schedule; `claim` goes to the handler's `check`. */
  checkNow(watchId: string, claim: string): Promise<void>;
  /** Makes the first attempt of a delivery now; its retries follow the handler's answers. */
  deliver(deliveryId: string): Promise<void>;
  /**
   * Stops taking work, lets the work held finish (or hands it back to the engine, for another process),
   * and closes the engine's connections. Idempotent.
   */
  close(): Promise<void>;
}
