import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/unit/ is vitest.unit.config.ts's, which `npm test` runs first without the stack.
    // The reliability suites run here with RELIABILITY_TRIALS' small default; these two only under
    // `npm run verify` (vitest.reliability.config.ts): a 40 s session lifetime to wait out, six processes.
    exclude: [...configDefaults.exclude, 'test/unit/**', 'test/reliability/temporal-restart.test.ts', 'test/reliability/scale-out.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 60_000,
    // expect.poll's own default (1 s) is a bet on the machine's load: a page step or a webhook that
    // arrives in 1.2 s on a busy CI is not a failure. A poll that can never succeed still fails, later.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 120_000,
    // Most of a test's time is spent waiting (timers, deadlines, a browser, webhooks), not computing:
    // on this 2-core machine the whole run took 418 s with 2 forks, 338 s with 3 and 329 s with 4,
    // where each further fork adds its own imports and load. Three is where the gain stops.
    maxWorkers: 3,
    pool: 'forks',
    // Each fork runs its share of the files one after another with the modules it already loaded:
    // re-importing the SDK, Hono, zod and the app for every file cost about 175 s of a 550 s run.
    // Files therefore leave nothing behind (the SDK's runtime is shared: test/support/sdk-runtime.ts).
    isolate: false,
    unstubEnvs: true,
  },
});
