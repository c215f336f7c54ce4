import type { ChargeRequest, ChargeResult, PaymentProcessor } from '../../core/checkout/payment-processor.js';

const notUsed = (): Promise<never> => Promise.reject(new Error('not used by this test'));

/** A stand-in processor whose charges always answer: lookup, void, capture and refund are never called. */
export function answeringProcessor(name: string, charge: (request: ChargeRequest) => Promise<ChargeResult>): PaymentProcessor {
  return { name, charge, lookup: notUsed, void: notUsed, capture: notUsed, refund: notUsed };
}
