import { defineConfig } from 'vitest/config';

// Only keyv's own adapter suite runs under vitest (it is written for it); everything else is mocha.
export default defineConfig({
  test: {
    include: ['test/keyv/**/*.keyv.ts'],
    testTimeout: 20000,
  },
});
