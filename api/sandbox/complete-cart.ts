import { customerActions, type ActionResult } from '../../application/checkout/customer-actions.js';
import { checkoutLimits } from '../../application/checkout/checkout-limits.js';
import { ApiError } from '../../application/errors.js';
import { storeCard, deleteCard } from '../../core/checkout/card-vault.js';
import { cardBrand } from '../../core/checkout/cards.js';
import { budgetProvenance } from '../../core/checkout/cart-provenance.js';
import { offersReminder } from '../../core/checkout/cart-recovery.js';
import { claimForSandboxHelper, recordFunnelStep, type CartOwner } from '../../core/checkout/cart-ledger.js';
import { findOwnerCart } from '../../core/checkout/order-views.js';
import { reserveLinkUse } from '../../core/links/link-uses.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { readLatestOutboxCode } from '../../core/checkout/otp/outbox.js';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { sandboxChargesIn } from '../../core/checkout/payment-processors/sandbox-charges.js';
import { SANDBOX_CARDS, SANDBOX_TEST_CARD } from '../../core/checkout/payment-processors/sandbox.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';
import { stateQuery, type CartSessionState } from '../../workflows/cart-session/messages.js';
import { withDeadline } from '../../core/temporal/connection.js';
import { QUERY_HANDOVER_MS } from '../../core/temporal/worker-loss.js';
import type { SandboxDeps } from './deps.js';
import { cartNotFound, linkRefusedPay, sessionEnded, sessionInBrowser } from './refusals.js';

export const SANDBOX_OUTCOMES = ['approved', 'declined', 'challenge_passed', 'challenge_failed', 'frictionless'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/** The sandbox card that gives each outcome (core/checkout/payment-processors/sandbox.ts). */
const CARD_OF: Record<SandboxOutcome, string> = {
  approved: SANDBOX_CARDS.approved,
  declined: SANDBOX_CARDS.declined,
  challenge_passed: SANDBOX_CARDS.challenge,
  challenge_failed: SANDBOX_CARDS.challenge,
  frictionless: SANDBOX_CARDS.frictionless,
};

/** The contact the helper verifies: a reserved domain (RFC 2606), so a sandbox with a real mail provider mails nobody. */
export const SANDBOX_HELPER_CONTACT = 'sandbox.customer@example.com';

/**
 * The customer's part of a sandbox checkout, by API (`POST /v2/sandbox/carts/{cartId}/complete`): the
 * code sent to SANDBOX_HELPER_CONTACT and verified, the sandbox card of the outcome paid, and its
 * 3-D Secure challenge answered, each through the very update the page sends
 * (application/checkout/customer-actions.ts), so the session, its ledger and its webhooks are the
 * real ones. The code is the one the real send put in the sandbox outbox, opened only to be hashed as
 * the page hashes what the customer types. Its Pay is held to the session's payment link, if any, as the
 * page's is (core/links/link-uses.ts). The helper is the cart's one browser: it claims a cart no
 * browser started (claimForSandboxHelper), and the page serves a claimed cart to none. It counts
 * against the page's limits, per the caller's address. Answers the session's state once its outcome
 * is recorded, or as far as it got.
 */
export async function completeSandboxCart(
  deps: SandboxDeps,
  request: { owner: CartOwner; cartId: string; address: string; outcome: SandboxOutcome; captureMethod?: 'automatic' | 'manual' },
): Promise<CartSessionState> {
  const { db, config, temporal } = deps;
  const { cartId, owner, address } = request;
  const cart = await findOwnerCart(db, owner, cartId);
  if (!cart) throw cartNotFound(cartId);
  const captureMethod = cart.cart.captureMethod ?? 'automatic';
  if (request.captureMethod && request.captureMethod !== captureMethod) {
    throw new ApiError('VALIDATION_ERROR', 'The request has 1 invalid field.', [
      { path: 'captureMethod', message: `must be "${captureMethod}", as the cart says, or absent` },
    ]);
  }
  if (cart.status !== 'pending') throw sessionEnded(cart.status);
  if (!(await claimForSandboxHelper(db, cartId))) throw sessionInBrowser();

  const limits = checkoutLimits({ config, db, logger: deps.logger });
  const actions = customerActions(temporal, config);
  const act = async (action: () => Promise<ActionResult>): Promise<CartSessionState> => {
    const retryAfter = await limits.pageAction(address);
    if (retryAfter !== undefined) throw rateLimited(retryAfter);
    const result = await action();
    if (result.accepted) return result.state;
    if (result.reason === 'session-closed') throw sessionEnded('ended');
    // The session refused what a customer could not have done either: its words are a developer's too.
    throw new ApiError('SESSION_ENDED', `The session refused the step: ${result.message}`, [{ path: 'cartId', message: result.code ?? 'refused' }]);
  };
  const reached = (step: 'code_sent' | 'code_verified' | 'pay_attempted') =>
    recordFunnelStep(db, cartId, step).catch((err: unknown) => deps.logger.warn({ err, cartId, step }, 'funnel step not recorded'));

  let state = await withDeadline(temporal, QUERY_HANDOVER_MS + 2_000, () => cartSessionHandle(temporal.client, cartId).query(stateQuery));
  if (state.step === 'contact') {
    const contactKey = limits.contactKey(SANDBOX_HELPER_CONTACT);
    const counted = await limits.otpSend(address, { contactKey, channel: 'email', platformUuid: owner.platformUuid, createdWith: budgetProvenance(cart) });
    if (!counted.allowed) throw rateLimited(counted.retryAfterSeconds);
    const before = state;
    // The reminder is asked for where the page would offer it, so `advance` to reminder_due has one to send.
    const remind = offersReminder(cart);
    state = await act(() =>
      actions.sendCode(cartId, SANDBOX_HELPER_CONTACT, before, {
        contactKey,
        cardKey: savedCardContactKey(config.keyring, SANDBOX_HELPER_CONTACT),
        ...(remind ? { remind } : {}),
      }),
    );
    await reached('code_sent');
  }
  if (state.step === 'code') {
    const sent = await readLatestOutboxCode(db, config.keyring, cartId);
    // A sandbox with a real mail provider sent the code by mail; the sandbox code works there too.
    const codeHash = otpHash(config.keyring, cartId, sent?.code ?? config.sandboxOtp);
    const before = state;
    state = await act(() => actions.verifyCode(cartId, codeHash, before));
    if (state.step === 'code')
      throw new ApiError('SESSION_ENDED', 'The session did not accept the sandbox code.', [{ path: 'cartId', message: 'code not accepted' }]);
    await reached('code_verified');
  }
  if (state.step === 'card') {
    // Held to the session's payment link as the page's Pay is: a use reserved, or the link's refusal.
    const linkRefusal = await reserveLinkUse(db, { cartId, paymentLinkId: cart.paymentLinkId });
    if (linkRefusal) throw linkRefusedPay(cart.paymentLinkId!, linkRefusal);
    const pan = CARD_OF[request.outcome];
    const card = { pan, brand: cardBrand(pan), last4: pan.slice(-4), ...SANDBOX_TEST_CARD };
    const { token } = await storeCard(db, config.keyring, cartId, card);
    const before = state;
    try {
      state = await act(() => actions.pay(cartId, { cardToken: token, brand: card.brand, last4: card.last4 }, before));
    } catch (err) {
      await deleteCard(db, token);
      throw err;
    }
    await reached('pay_attempted');
  }
  if (state.step === 'authenticating') {
    const challenge = await sandboxChargesIn(db).authenticationOfKey(cartId);
    if (challenge) await sandboxChargesIn(db).answerAuthentication(challenge.chargeId, request.outcome === 'challenge_passed' ? 'authenticated' : 'failed');
    state = await act(() => actions.threeDSecureReturn(cartId));
  }
  return state;
}

const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(
    'RATE_LIMITED',
    `Too many checkout actions or codes from your address: the sandbox helpers count against the checkout page's limits. Retry after ${retryAfterSeconds} s.`,
    [],
    { 'Retry-After': String(retryAfterSeconds) },
  );
