import { defineConfig } from 'vitest/config';

/**
 * The workflow tests alone (`npm run test:workflows`, in seconds): workflow logic with mocked
 * activities against a Temporal dev server each file starts (test/support/workflow-environment.ts).
 * Nothing of the stack test/setup/global-setup.ts starts, only the workflow bundle, built once.
 * `npm test` runs these files too, under vitest.config.ts.
 */
export default defineConfig({
  test: {
    include: ['test/workflows/**/*.test.ts'],
    globalSetup: ['test/setup/workflow-bundle.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    pool: 'forks',
  },
});
