import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from '@keyv/redis';

/** A backend the contract suites run against. */
export interface BackendCase {
  name: string;
  /** A store URL for a fresh, empty store (a new file, a new namespace…). */
  url(): string;
  /** True when two Dossier instances on the same URL share data (not so for memory://). */
  shared: boolean;
  /**
   * For a server that counts lifetimes down on its own clock (Redis), which the injected one does not
   * move: makes everything it holds `ms` older, as the tests move their clock. @default none
   */
  age?(ms: number): Promise<void>;
  /** Removes what `url()` created. */
  cleanup(): void;
}

/** The backends of this machine: memory and SQLite always; Redis, PostgreSQL and MySQL when their test URL is set. */
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
  if (redis) cases.push({ name: 'redis', url: () => redis, shared: true, age: (ms) => ageRedis(redis, ms), cleanup() {} });
  else skipped.push('redis (set DOSSIER_TEST_REDIS=redis://127.0.0.1:6379 to run it)');
  if (postgres) cases.push({ name: 'postgres', url: () => postgres, shared: true, cleanup() {} });
  else skipped.push('postgres (set DOSSIER_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test to run it)');
  const mysql = process.env.DOSSIER_TEST_MYSQL;
  if (mysql) cases.push({ name: 'mysql', url: () => mysql, shared: true, cleanup() {} });
  else skipped.push('mysql (set DOSSIER_TEST_MYSQL=mysql://root@127.0.0.1:3306/test to run it)');
  return { cases, skipped };
}

/** Every key of the database that expires, `ms` closer to its expiry (gone when it passes it). */
const AGE_SCRIPT = `
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    local left = redis.call('PTTL', key)
    if left > 0 then
      if left <= tonumber(ARGV[1]) then redis.call('DEL', key) else redis.call('PEXPIRE', key, left - tonumber(ARGV[1])) end
    end
  end
until cursor == '0'
return 0`;

/** Ages the Redis database at `url` (the test process's own: test/support/isolation.ts) by `ms`. */
async function ageRedis(url: string, ms: number): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    await client.eval(AGE_SCRIPT, { keys: [], arguments: [String(ms)] });
  } finally {
    await client.quit();
  }
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
