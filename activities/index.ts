import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { createOutboxOtpSender, type OtpSender } from '../core/otp-sender.js';
import { createSandboxPaymentProcessor, type PaymentProcessor } from '../core/payment-processor.js';
import { createLedgerActivities } from './ledger.js';
import { createOtpActivities } from './otp.js';
import { createPaymentActivities } from './payments.js';
import { createWebhookEventActivities } from './webhook-events.js';
import { createWebhookActivities } from './webhooks.js';

export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** Required in production; sandbox defaults to the outbox sender, which refuses production. */
  otpSender?: OtpSender;
  /** Required in production; sandbox defaults to the simulator, which refuses production. */
  paymentProcessor?: PaymentProcessor;
}

/** Every activity the worker registers, built from explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLedgerActivities(deps.db),
    ...createOtpActivities({
      config: deps.config,
      otpSender: deps.otpSender ?? createOutboxOtpSender({ environment: deps.config.environment, db: deps.db, key: deps.config.dataEncryptionKey, logger: deps.logger }),
    }),
    ...createPaymentActivities({
      ...deps,
      paymentProcessor: deps.paymentProcessor ?? createSandboxPaymentProcessor(deps.config.environment),
    }),
    ...createWebhookEventActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type CartActivities = ReturnType<typeof createActivities>;
