import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { type PaymentProcessor } from '../payment-processor.js';
import { createSandboxPaymentProcessor } from './sandbox.js';
import { createStripePaymentProcessor } from './stripe.js';

/**
 * The processor PAYMENT_PROCESSOR names. The simulator refuses production, whatever the configuration
 * says; it keeps its charges in `db` (core/checkout/payment-processors/sandbox-charges.ts).
 */
export function paymentProcessorFromConfig(config: Pick<Config, 'environment' | 'payments'>, db?: Db): PaymentProcessor {
  return config.payments.processor === 'stripe'
    ? createStripePaymentProcessor(config.payments.stripe)
    : createSandboxPaymentProcessor(config.environment, db ? { db } : {});
}
