import { ApplicationFailure } from '@temporalio/activity';
import { ProcessorUnavailableError } from '../../core/checkout/payment-processor.js';
import type { Logger } from '../../core/logger.js';

/** ApplicationFailure type of a retryable processor outage: the outcome is unknown, never a decline. */
export const PROCESSOR_UNAVAILABLE = 'ProcessorUnavailable';

/**
 * Runs processor calls for the payment and refund activities: no answer becomes a retryable
 * ApplicationFailure, never a result, so the workflow's retry policy asks again under the same key.
 * `about` names what the call was for in the log line (the cart, or the refund).
 */
export function processorCalls(deps: { logger: Logger; processor: string }) {
  const { logger, processor } = deps;
  return async <T>(about: Record<string, string>, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ProcessorUnavailableError) {
        logger.warn({ ...about, processor, error: error.message }, 'payment processor unavailable');
        throw ApplicationFailure.retryable(error.message, PROCESSOR_UNAVAILABLE);
      }
      throw error;
    }
  };
}
