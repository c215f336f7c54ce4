import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: test/unit/ alone, in-process checks of pure modules, with nothing of the stack
 * (no global setup: no PostgreSQL, Temporal, stripe-mock or workflow bundle), in seconds. `npm test`
 * runs it first, then vitest.config.ts, which leaves these files out.
 */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Measured on this 2-core machine under other runs' load: 21 s with 2 forks and isolate: false,
    // 47 s with isolate: true, where each file re-imports zod, Hono and the app's modules; threads
    // made no difference. The stack run already runs these files unisolated, so each leaves nothing behind.
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    // The property tests and the Stripe adapter's retries take a second or two; 5 s is too close once
    // the machine is busy with another run.
    testTimeout: 20_000,
    unstubEnvs: true,
  },
});
