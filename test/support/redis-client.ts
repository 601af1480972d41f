import { createClient } from '@keyv/redis';

/** A suite's client of the Redis of `DOSSIER_TEST_REDIS`, there once the suite's `before` hook has run. */
export interface SuiteRedis {
  client: ReturnType<typeof createClient>;
}

/**
 * Registers a suite's Redis client (call it in the `describe`): connected to `DOSSIER_TEST_REDIS` before
 * its tests (the suite skipped where that is not set), quit after them; with `flush`, the database emptied
 * before each test.
 */
export function suiteRedis(options: { flush?: boolean } = {}): SuiteRedis {
  const suite = {} as SuiteRedis;
  before(async function () {
    const url = process.env.DOSSIER_TEST_REDIS;
    if (!url) this.skip();
    suite.client = createClient({ url });
    await suite.client.connect();
  });
  if (options.flush === true) {
    beforeEach(async () => {
      // This test process's own database (test/support/isolation.ts).
      await suite.client.flushDb();
    });
  }
  after(async () => {
    if (suite.client?.isOpen) await suite.client.quit();
  });
  return suite;
}
