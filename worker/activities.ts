import { Context } from '@temporalio/activity';
import { createCardVaultPurgeActivities } from '../activities/card-vault-purge/index.js';
import { createCartSessionActivities } from '../activities/cart-session/index.js';
import { createDisputeActivities } from '../activities/dispute/index.js';
import { createLateOutcomeActivities } from '../activities/late-outcome/index.js';
import { createDomainVerificationActivities } from '../activities/domain-verification/index.js';
import { createPageIntegrityCheckActivities } from '../activities/page-integrity-check/index.js';
import { createSavedCardRemovalActivities } from '../activities/saved-card-removal/index.js';
import type { ActivityMetrics } from '../activities/metrics.js';
import { createRefundActivities } from '../activities/refund/index.js';
import { createDeliveryAttempt, createWebhookDeliveryActivities } from '../activities/webhook-delivery/index.js';
import { otpSenderFromConfig } from '../core/checkout/otp/delivery/from-config.js';
import type { MessageSender } from '../core/checkout/otp/sender.js';
import type { PaymentProcessor } from '../core/checkout/payment-processor.js';
import { paymentProcessorFromConfig } from '../core/checkout/payment-processors/from-config.js';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { FetchVerificationFile, ResolveTxt } from '../core/merchants/domain-verification.js';
import type { Logger } from '../core/logger.js';
import type { RequestDelivery } from '../core/webhooks/delivery.js';
import { postWebhook } from '../core/webhooks/http-post.js';
import { deliveryRequests } from '../workflows/webhook-delivery/client.js';
import { disputeWorkflows } from '../workflows/dispute/client.js';
import { sandboxDisputeOpening } from '../application/disputes/sandbox-dispute.js';
import { findOrder } from '../core/checkout/order-views.js';

/** How long after a sandbox dispute card pays its dispute opens: after the session has recorded the order paid. */
const SANDBOX_CARD_DISPUTE_DELAY_MS = 5_000;

export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** Defaults to the providers configured (SMTP, Twilio); sandbox falls back to the outbox for a channel without one. */
  otpSender?: MessageSender;
  /**
   * How a webhook is sent; the real one (core/webhooks/http-post.ts) unless a production test must
   * reach a receiver on this machine, which production's address rules rightly refuse.
   */
  postWebhook?: typeof postWebhook;
  /** Defaults to the one PAYMENT_PROCESSOR names: Stripe, or the simulator (which refuses production). */
  paymentProcessor?: PaymentProcessor;
  /**
   * How a domain's well-known verification file is fetched and its TXT record looked up
   * (core/merchants/domain-verification.ts): the real ones, through the webhooks' outbound guard,
   * unless a test gives its own (no network in tests).
   */
  fetchVerificationFile?: FetchVerificationFile;
  resolveTxt?: ResolveTxt;
  /** What the activities count (payments, refunds, webhook attempts, code sends), served by the worker's /metrics. */
  metrics: ActivityMetrics;
}

/**
 * Every activity the worker registers: each workflow's own, built from explicit dependencies. The cart
 * session and the refund both record cart events; both build `recordCartEvent` from the same module
 * (activities/shared/cart-events.ts) and the same dependencies, so either copy is the same activity.
 */
export function createActivities(deps: ActivityDeps) {
  // Code delivery first: a production worker missing both is told about its code providers first.
  const otpSender = deps.otpSender ?? otpSenderFromConfig(deps);
  const paymentProcessor = deps.paymentProcessor ?? paymentProcessorFromConfig(deps.config, deps.db);
  // The activities that record cart events hand each to its cart's delivery workflow
  // (activities/shared/cart-events.ts, activities/cart-session/ledger.ts) through the client of the
  // activity running at the time: the worker's own, which exists only inside an activity.
  const requestDelivery: RequestDelivery = (cartId, request) => deliveryRequests(Context.current().client, deps.config)(cartId, request);
  // The sandbox's dispute card (SANDBOX_CARDS.disputed) opens its dispute through the activity's client, as delivery does.
  const openSandboxDispute = async (cartId: string) => {
    const order = await findOrder(deps.db, cartId);
    if (!order) throw new Error(`cart ${cartId} is not in the ledger`);
    const disputes = disputeWorkflows(Context.current().client, deps.config);
    // One dispute per cart, whatever the activity's retries: its id is the cart's.
    await disputes.tell(sandboxDisputeOpening(deps.config, order, 'fraudulent', `dp_sandbox_${cartId}`), { startDelayMs: SANDBOX_CARD_DISPUTE_DELAY_MS });
  };
  const shared = {
    ...deps,
    ...(paymentProcessor.name === 'sandbox' ? { openSandboxDispute } : {}),
    keyring: deps.config.keyring,
    checkoutBaseUrl: deps.config.checkoutBaseUrl,
    otpSender,
    paymentProcessor,
    requestDelivery,
    attemptDelivery: createDeliveryAttempt(deps),
  };
  return {
    ...createCartSessionActivities(shared),
    ...createRefundActivities(shared),
    ...createWebhookDeliveryActivities(shared),
    ...createCardVaultPurgeActivities(shared),
    ...createDomainVerificationActivities(shared),
    ...createSavedCardRemovalActivities(shared),
    ...createPageIntegrityCheckActivities({ ...shared, postWebhook: deps.postWebhook ?? postWebhook }),
    ...createDisputeActivities(shared),
    ...createLateOutcomeActivities(shared),
  };
}
