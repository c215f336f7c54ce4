import type { MessageSender } from '../../core/checkout/otp/sender.js';
import type { PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { findCartMerchantName } from '../../core/checkout/cart-ledger.js';
import type { Config } from '../../core/config.js';
import type { Keyring } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { AttemptDelivery, RequestDelivery } from '../../core/webhooks/delivery.js';
import type { ActivityMetrics } from '../metrics.js';
import { createLedgerActivities } from './ledger.js';
import { createOtpActivities } from './otp.js';
import { createPaymentActivities } from './payments.js';
import { createReminderActivities } from './reminder.js';

export interface CartSessionActivityDeps {
  config: Config;
  db: Db;
  /** The config's keyring: seals the customer's contact in the ledger and the stored events. */
  keyring: Keyring;
  /** The config's CHECKOUT_BASE_URL: an abandoned order's recoveryUrl is under it (core/checkout/order-model.ts). */
  checkoutBaseUrl: string;
  logger: Logger;
  otpSender: MessageSender;
  paymentProcessor: PaymentProcessor;
  requestDelivery: RequestDelivery;
  /** A session's own first attempt at its event (activities/webhook-delivery/index.ts createDeliveryAttempt). */
  attemptDelivery: AttemptDelivery;
  metrics: ActivityMetrics;
}

/** What the cart session (workflows/cart-session/) does outside its sandbox: the ledger, one-time codes, the payment, the recovery reminder. */
export function createCartSessionActivities(deps: CartSessionActivityDeps) {
  return {
    ...createLedgerActivities(deps),
    ...createOtpActivities({ ...deps, merchantNameOf: (cartId) => findCartMerchantName(deps.db, cartId) }),
    ...createPaymentActivities(deps),
    ...createReminderActivities(deps),
  };
}

export type CartSessionActivities = ReturnType<typeof createCartSessionActivities>;
