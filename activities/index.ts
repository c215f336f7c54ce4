import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { type OtpSender } from '../core/checkout/otp/sender.js';
import type { PaymentProcessor } from '../core/checkout/payment-processor.js';
import { paymentProcessorFromConfig } from '../core/checkout/payment-processors/from-config.js';
import { findCartMerchantName } from '../core/checkout/cart-ledger.js';
import { createLedgerActivities } from './checkout/ledger.js';
import { createOtpActivities } from './checkout/otp.js';
import { createPaymentActivities } from './checkout/payments.js';
import { createWebhookEventActivities } from './webhooks/record-event.js';
import { createWebhookActivities } from './webhooks/deliver.js';
import { createRefundActivities } from './refunds/refunds.js';
import type { postWebhook } from '../core/webhooks/http-post.js';
import { otpSenderFromConfig } from '../core/checkout/otp/delivery/from-config.js';
import type { ActivityMetrics } from './metrics.js';

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
  /** What the activities count (payments, refunds, webhook attempts, code sends), served by the worker's /metrics. */
  metrics: ActivityMetrics;
}

/** Every activity the worker registers, built from explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  // Code delivery first: a production worker missing both is told about its code providers first.
  const otpSender = deps.otpSender ?? otpSenderFromConfig(deps);
  const paymentProcessor = deps.paymentProcessor ?? paymentProcessorFromConfig(deps.config);
  return {
    ...createLedgerActivities(deps.db),
    ...createOtpActivities({
      config: deps.config,
      otpSender,
      metrics: deps.metrics,
      merchantNameOf: (cartId) => findCartMerchantName(deps.db, cartId),
    }),
    ...createPaymentActivities({ ...deps, paymentProcessor }),
    ...createRefundActivities({ ...deps, paymentProcessor }),
    ...createWebhookEventActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type CartActivities = ReturnType<typeof createActivities>;
