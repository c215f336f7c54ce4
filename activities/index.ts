import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { type OtpSender } from '../core/checkout/otp-sender.js';
import { createSandboxPaymentProcessor, type PaymentProcessor } from '../core/checkout/payment-processor.js';
import { createLedgerActivities } from './checkout/ledger.js';
import { createOtpActivities } from './checkout/otp.js';
import { createPaymentActivities } from './checkout/payments.js';
import { createWebhookEventActivities } from './webhooks/record-event.js';
import { createWebhookActivities } from './webhooks/deliver.js';
import { createRefundActivities } from './refunds/refunds.js';
import { otpSenderFromConfig } from '../core/checkout/otp-delivery/from-config.js';

export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** Defaults to the providers configured (SMTP, Twilio); sandbox falls back to the outbox for a channel without one. */
  otpSender?: OtpSender;
  /** Required in production; sandbox defaults to the simulator, which refuses production. */
  paymentProcessor?: PaymentProcessor;
}

/** Every activity the worker registers, built from explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  const paymentProcessor = deps.paymentProcessor ?? createSandboxPaymentProcessor(deps.config.environment);
  return {
    ...createLedgerActivities(deps.db),
    ...createOtpActivities({
      config: deps.config,
      otpSender: deps.otpSender ?? otpSenderFromConfig(deps),
    }),
    ...createPaymentActivities({ ...deps, paymentProcessor }),
    ...createRefundActivities({ ...deps, paymentProcessor }),
    ...createWebhookEventActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type CartActivities = ReturnType<typeof createActivities>;
