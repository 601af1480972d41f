import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DossierOptions } from '../../lib/options.js';
import { uniqueName } from '../contracts/backends.js';

/** A store watches run on, and so an engine: timers on memory and SQLite, BullMQ on Redis and PostgreSQL. */
export interface WatchEngineCase {
  /** `memory (timers)`, `sqlite (timers)`, `redis (BullMQ)`, `postgres (BullMQ)`. */
  name: string;
  /** True when several processes (Dossiers) on the options share the work: every store but memory. */
  shared: boolean;
  /**
   * The store options of a fresh store, the same for every process of one test (call once per test);
   * `undefined` when this machine has no such server (the test skips).
   */
  options(): Pick<DossierOptions, 'store' | 'jobQueuePrefix'> | undefined;
  /** Removes what the options made (SQLite files). */
  cleanup(): void;
}

/** Every engine, on the stores of this machine (Redis and PostgreSQL from `DOSSIER_TEST_REDIS` and `DOSSIER_TEST_POSTGRES`). */
export function watchEngineCases(): WatchEngineCase[] {
  const dirs: string[] = [];
  const shared = (name: string, url: string | undefined): WatchEngineCase => ({
    name,
    shared: true,
    options: () => (url ? { store: url, jobQueuePrefix: uniqueName('jobs') } : undefined),
    cleanup() {},
  });
  return [
    { name: 'memory (timers)', shared: false, options: () => ({ store: 'memory://' }), cleanup() {} },
    {
      name: 'sqlite (timers)',
      shared: true,
      options() {
        const dir = mkdtempSync(join(tmpdir(), 'dossier-watches-'));
        dirs.push(dir);
        return { store: `sqlite://${join(dir, 'store.sqlite')}` };
      },
      cleanup() {
        for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
      },
    },
    shared('redis (BullMQ)', process.env.DOSSIER_TEST_REDIS),
    shared('postgres (BullMQ)', process.env.DOSSIER_TEST_POSTGRES),
  ];
}
