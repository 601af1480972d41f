import { setTimeout as sleep } from 'node:timers/promises';

/** How long {@link until} waits at most: far beyond any wait of a passing test, within mocha's 20 s. */
const PATIENCE_MS = 10_000;

/**
 * How long a wait that includes starting a Node process, or a background job over a whole store, may
 * take: a process loading the library took over 10 s beside a loaded suite. Within the 60 s that such
 * tests give themselves.
 */
export const LONG_PATIENCE_MS = 45_000;

/**
 * Polls `condition` (every 10 ms) until it holds. A test waits with this for what happens in another
 * task, connection or process, never for a time to pass.
 * @param patienceMs how long at most: {@link LONG_PATIENCE_MS} when the wait includes a process start.
 * @throws Error naming `what` when it has not happened within `patienceMs`.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  patienceMs: number = PATIENCE_MS,
): Promise<void> {
  const giveUpAt = performance.now() + patienceMs;
  while (!(await condition())) {
    if (performance.now() > giveUpAt) throw new Error(`waited ${patienceMs / 1000} s, but not until ${what}`);
    await sleep(10);
  }
}
