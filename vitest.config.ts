import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suites run here with RELIABILITY_TRIALS' small default; these two only under
    // `npm run verify` (vitest.reliability.config.ts): a 40 s session lifetime to wait out, six processes.
    exclude: [...configDefaults.exclude, 'test/reliability/temporal-restart.test.ts', 'test/reliability/scale-out.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more forks only make the Temporal server and PostgreSQL fight for them.
    maxWorkers: 2,
    pool: 'forks',
  },
});
