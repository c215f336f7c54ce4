import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more forks only make the Temporal server and PostgreSQL fight for them.
    maxWorkers: 2,
    pool: 'forks',
  },
});
