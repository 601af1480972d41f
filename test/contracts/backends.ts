import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A backend the contract suites run against. */
export interface BackendCase {
  name: string;
  /** A store URL for a fresh, empty store (a new file, a new namespace…). */
  url(): string;
  /** True when two Dossier instances on the same URL share data (not so for memory://). */
  shared: boolean;
  /**
   * True when the server counts a lifetime down on its own clock (Redis), which a test cannot move:
   * such suites use short lifetimes and wait them out as well as moving the injected clock.
   */
  serverClock?: boolean;
  /** Removes what `url()` created. */
  cleanup(): void;
}

/** The backends of this machine: memory and SQLite always; Redis and PostgreSQL when their test URL is set. */
export function backendCases(): { cases: BackendCase[]; skipped: string[] } {
  const dirs: string[] = [];
  const cases: BackendCase[] = [
    { name: 'memory', url: () => 'memory://', shared: false, cleanup() {} },
    {
      name: 'sqlite',
      shared: true,
      url() {
        const dir = mkdtempSync(join(tmpdir(), 'dossier-test-'));
        dirs.push(dir);
        return `sqlite://${join(dir, 'store.sqlite')}`;
      },
      cleanup() {
        for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
      },
    },
  ];
  const skipped: string[] = [];
  const redis = process.env.DOSSIER_TEST_REDIS;
  const postgres = process.env.DOSSIER_TEST_POSTGRES;
  if (redis) cases.push({ name: 'redis', url: () => redis, shared: true, serverClock: true, cleanup() {} });
  else skipped.push('redis (set DOSSIER_TEST_REDIS=redis://127.0.0.1:6379 to run it)');
  if (postgres) cases.push({ name: 'postgres', url: () => postgres, shared: true, cleanup() {} });
  else skipped.push('postgres (set DOSSIER_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test to run it)');
  return { cases, skipped };
}

/**
 * The store deadline of the contract suites: they check exactness under 1500 parallel calls on one
 * row, which a 10-connection PostgreSQL pool on a shared machine may take longer than the default
 * 2 s to drain; the deadline itself has its own tests (test/integration/store-outage.test.ts).
 */
export const CONTRACT_STORE_TIMEOUT_MS = 15_000;

/** A name no other test uses, so that tests on a shared server never see each other's data. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}
