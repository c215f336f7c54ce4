import { defineConfig } from 'vitest/config';

/**
 * `npm run verify`: the fault-injection, scale-out and race suites at full strength, and the
 * hostile-input fuzzer, one file at a time (each runs its own processes and servers on two cores).
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts', 'test/integration/create-cart-hostile-input.test.ts', 'test/integration/workflow-replay.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    pool: 'forks',
  },
});
