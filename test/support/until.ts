import { setTimeout as sleep } from 'node:timers/promises';

/** How long {@link until} waits at most: far beyond any wait of a passing test, within mocha's 20 s. */
const PATIENCE_MS = 10_000;

/**
 * Polls `condition` (every 10 ms) until it holds. A test waits with this for what happens in another
 * task, connection or process, never for a time to pass.
 * @throws Error naming `what` when it has not happened within 10 s.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const giveUpAt = performance.now() + PATIENCE_MS;
  while (!(await condition())) {
    if (performance.now() > giveUpAt) throw new Error(`waited ${PATIENCE_MS / 1000} s, but not until ${what}`);
    await sleep(10);
  }
}
