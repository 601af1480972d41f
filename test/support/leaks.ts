import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, RootHookObject } from 'mocha';

/** How long closed handles get to leave the event loop before what is left counts as leaked. */
const SETTLE_MS = 2000;

/** The event loop's active handles and requests of each kind (`TCPSocketWrap`, `Timeout`, `ProcessWrap`, …). */
function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** What `now` holds beyond `before`, as `2 × TCPSocketWrap`; empty when nothing. */
function beyond(before: Map<string, number>, now: Map<string, number>): string[] {
  const extra: string[] = [];
  for (const [kind, count] of now)
    if (count > (before.get(kind) ?? 0)) extra.push(`${count - (before.get(kind) ?? 0)} × ${kind}`);
  return extra;
}

/** Where each timer still pending was made: `Timeout` alone does not say whose it is. */
const timerOrigins = new Map<NodeJS.Timeout, string>();

/** Records where each `setTimeout`/`setInterval` of the tests and the code under test was called. */
function traceTimers(): void {
  for (const name of ['setTimeout', 'setInterval'] as const) {
    const original = globalThis[name] as (...args: unknown[]) => NodeJS.Timeout;
    const traced = (...args: unknown[]): NodeJS.Timeout => {
      const timer = original(...args);
      const frame = new Error().stack?.split('\n').find((line, index) => index > 1 && !line.includes('node:internal'));
      timerOrigins.set(timer, `${name} ${frame?.trim() ?? '(unknown)'}`);
      return timer;
    };
    Object.assign(traced, original);
    (globalThis as Record<string, unknown>)[name] = traced;
  }
}

/** Where the timers that still hold the event loop were made (forgetting the others). */
function pendingTimerOrigins(): string[] {
  const pending: string[] = [];
  for (const [timer, origin] of timerOrigins) {
    if ((timer as unknown as { _destroyed: boolean })._destroyed) timerOrigins.delete(timer);
    else if (timer.hasRef()) pending.push(origin);
  }
  return pending;
}

traceTimers();
let atStart = new Map<string, number>();
let timersAtStart = new Set<string>();

/**
 * A root hook plugin (`require` in .mocharc.json): a test file that leaves a socket, server, timer or
 * child process open after its last hook fails the run, naming the file and the kinds of what it left.
 * (The run has no `exit: true` to end it over such handles.)
 */
export const mochaHooks: RootHookObject = {
  async beforeAll() {
    // Counted after a turn, as in afterAll: mocha's timer for the hook that is running is then set.
    await Promise.resolve();
    atStart = activeResources();
    timersAtStart = new Set(pendingTimerOrigins());
  },
  async afterAll(this: Context) {
    await Promise.resolve();
    const giveUpAt = performance.now() + SETTLE_MS;
    let left = beyond(atStart, activeResources());
    while (left.length > 0 && performance.now() < giveUpAt) {
      await sleep(20);
      left = beyond(atStart, activeResources());
    }
    if (left.length > 0) {
      const files = [...new Set(this.test?.parent?.suites.map((suite) => suite.file) ?? [])].join(', ');
      const timers = pendingTimerOrigins().filter((origin) => !timersAtStart.has(origin));
      const made = timers.length > 0 ? `; pending timers made at:\n  ${timers.join('\n  ')}` : '';
      // What is left open would keep a run in one process (no --parallel) from ever ending: it ends a
      // second after mocha has reported, if still alive then (an unref'd timer holds nothing itself). A
      // worker of --parallel is left alone: mocha ends its workers itself, and one that exits under it
      // takes the files after it and the run's summary with it.
      if (process.env.MOCHA_WORKER_ID === undefined) setTimeout(() => process.exit(1), 1000).unref();
      throw new Error(`${files || 'the tests'} left open: ${left.join(', ')}${made}`);
    }
  },
};
