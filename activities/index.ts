import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { type OtpSender } from '../core/checkout/otp-sender.js';
import type { PaymentProcessor } from '../core/checkout/payment-processor.js';
import { paymentProcessorFromConfig } from '../core/checkout/payment-processors/from-config.js';
import { createLedgerActivities } from './checkout/ledger.js';
import { createOtpActivities } from './checkout/otp.js';
import { createPaymentActivities } from './checkout/payments.js';
import { createWebhookEventActivities } from './webhooks/record-event.js';
import { createWebhookActivities } from './webhooks/deliver.js';
import { createRefundActivities } from './refunds/refunds.js';
import type { postWebhook } from '../core/webhooks/http-post.js';
import { otpSenderFromConfig } from '../core/checkout/otp-delivery/from-config.js';

export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** Defaults to the providers configured (SMTP, Twilio); sandbox falls back to the outbox for a channel without one. */
  otpSender?: OtpSender;
  /**
   * How a webhook is sent; the real one (core/webhooks/http-post.ts) unless a production test must
   * reach a receiver on this machine, which production's address rules rightly refuse.
   */
  postWebhook?: typeof postWebhook;
  /** Defaults to the one PAYMENT_PROCESSOR names: Stripe, or the simulator (which refuses production). */
  paymentProcessor?: PaymentProcessor;
}

/** Every activity the worker registers, built from explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  const paymentProcessor = deps.paymentProcessor ?? paymentProcessorFromConfig(deps.config);
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
