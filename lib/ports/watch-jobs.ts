/**
 * What the job engine calls back: the core's own work, run when the engine says it is due.
 */
export interface WatchJobHandlers {
  /** Runs one check of a watch; a watch that no longer exists is skipped. */
  check(watchId: string): Promise<void>;
  /**
   * Makes the next attempt of a delivery.
   * @returns the milliseconds after which to try again, or `null` when the delivery is over (delivered,
   *   failed for good, or its watch removed: then its record is forgotten).
   */
  attempt(deliveryId: string): Promise<number | null>;
  /**
   * What the store holds that is due some time (for an engine that keeps nothing itself): every watch
   * with its interval and next check, every pending delivery with its next attempt (ms since the epoch).
   */
  outstanding(): Promise<{
    watches: { id: string; intervalMs: number; nextCheckAt: number }[];
    deliveries: { id: string; at: number }[];
  }>;
}

/**
 * Where checks and deliveries run (CONTRACT.md §11): BullMQ on a Redis or PostgreSQL store, timers of
 * this process on SQLite or memory. The core says what is due; the engine makes sure each check runs
 * once per interval and each attempt once, across every process sharing the store.
 */
export interface WatchJobs {
  /** Tells the engine what its work is: called once, by the watch service, whether this process runs work or not. */
  attach(handlers: WatchJobHandlers): void;
  /**
   * Starts running the checks and deliveries that fall due, in this process (a server or a worker).
   * Without it, this process only hands work to the processes that run it. Idempotent.
   */
  start(): Promise<void>;
  /** Checks a watch every `intervalMs`, the first time at once. Replaces the watch's schedule if it had one. */
  schedule(watchId: string, intervalMs: number): Promise<void>;
  /** Stops checking a watch. (Its deliveries' attempts still waiting find it gone: see `attempt`.) */
  unschedule(watchId: string): Promise<void>;
  /** Runs one check of a watch now, beside its schedule. */
  checkNow(watchId: string): Promise<void>;
  /** Makes the first attempt of a delivery now; its retries follow the handler's answers. */
  deliver(deliveryId: string): Promise<void>;
  /**
   * Stops taking work, lets the work held finish (or hands it back to the engine, for another process),
   * and closes the engine's connections. Idempotent.
   */
  close(): Promise<void>;
}
