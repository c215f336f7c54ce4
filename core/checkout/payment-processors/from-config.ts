import type { Config } from '../../config.js';
import { createSandboxPaymentProcessor, type PaymentProcessor } from '../payment-processor.js';
import { createStripePaymentProcessor } from './stripe.js';

/** The processor PAYMENT_PROCESSOR names. The simulator refuses production, whatever the configuration says. */
export function paymentProcessorFromConfig(config: Pick<Config, 'environment' | 'payments'>): PaymentProcessor {
  return config.payments.processor === 'stripe' ? createStripePaymentProcessor(config.payments.stripe) : createSandboxPaymentProcessor(config.environment);
}
