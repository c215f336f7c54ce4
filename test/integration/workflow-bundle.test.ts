import { describe, expect, inject, it } from 'vitest';

/**
 * What the workers' workflow bundle holds (worker/create-worker.ts). Every module a workflow imports is
 * evaluated again for each workflow a worker creates; zod and the dispute evidence schema were a
 * quarter of the workflow thread's time that way (docs/decisions/session-cost.md).
 */
describe('the workflow bundle', () => {
  const { code } = inject('workflowBundle');

  it('leaves zod out: no workflow imports a schema', () => {
    expect(code).toContain('./workflows/cart-session/workflow.ts');
    expect(code).not.toContain('./node_modules/zod/');
  });

  it('preloads the code digest, so its hash library is set up once per worker, not once per workflow', () => {
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(code)?.[1] ?? '';
    expect(preload).toContain('"./core/checkout/otp/digest.ts"');
  });
});
