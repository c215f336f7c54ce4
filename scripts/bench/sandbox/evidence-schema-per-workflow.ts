import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import '../../../core/checkout/dispute-evidence.js';

/**
 * Until 1.3 the workflows imported zod and the dispute evidence schema (then in
 * core/checkout/dispute-model.ts), so each workflow the worker created set them up again. Added to a
 * bundle's interceptor modules, this puts them back into each workflow's module set-up, for
 * scripts/bench/sandbox-levers.ts to measure what leaving them out saves.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({});
