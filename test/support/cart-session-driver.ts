import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { expect } from 'vitest';
import type { Cart, Item } from '../../core/checkout/cart-schema.js';
import { storeCard } from '../../core/checkout/card-vault.js';
import { markCustomerStarted } from '../../core/checkout/cart-ledger.js';
import { dropSessionMirror } from '../../core/checkout/session-mirror.js';
import { checkCard } from '../../core/checkout/cards.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { startCartSession, type CartSessionHandle } from '../../workflows/cart-session/client.js';
import {
  cancelUpdate,
  payUpdate,
  resendCodeUpdate,
  sendCodeUpdate,
  stateQuery,
  verifyCodeUpdate,
  type CartSessionInput,
  type CartSessionState,
} from '../../workflows/cart-session/messages.js';
import { createCartId, validCartRequest } from './fixtures.js';
import { waitFor } from './wait-for.js';
import type { TestStack } from './test-stack.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import type { CaptureMethod, OtpPolicy } from '../../core/checkout/session.js';
import { readLatestOutboxCode } from '../../core/checkout/otp/outbox.js';

export type SessionHandle = CartSessionHandle;

export interface Session {
  cartId: string;
  handle: SessionHandle;
}

/**
 * Drives cart sessions the way the hosted page does: through the workflow's updates, with the OTP as
 * a keyed hash and the card stored in the vault first (the web tier's job, done here by hand).
 */
/** Any running stack will do: the in-process one, or processes started by the reliability suites. */
export type DrivenStack = Pick<TestStack, 'config' | 'db' | 'temporal' | 'apiUrl'>;

/** What a test's cart differs in from validCartRequest's. */
export interface SessionOptions {
  captureMethod?: CaptureMethod;
  currency?: string;
  items?: Item[];
  recovery?: Cart['recovery'];
}

export function cartSessionDriver(stack: DrivenStack, platformUuid: string) {
  const keyring = stack.config.keyring;
  const handleOf = (cartId: string): SessionHandle => stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId));
  /**
   * As the page does before any update: the checkout page shows an unmarked pending cart without asking
   * its workflow. And as the page's updates do, the page's copy of the state goes (core/checkout/session-mirror.ts).
   */
  const started = async (s: Session) => {
    await markCustomerStarted(stack.db, s.cartId);
    await dropSessionMirror(stack.db, s.cartId);
  };

  return {
    handleOf,

    /** A session created through the public API, exactly as a merchant does; `captureMethod`, `currency`, `items` and `recovery` as the cart says them. */
    async createSession(options: SessionOptions = {}): Promise<Session> {
      const request = validCartRequest(platformUuid);
      if (options.captureMethod) request.cartObject.cart.captureMethod = options.captureMethod;
      if (options.recovery) request.cartObject.cart.recovery = options.recovery;
      if (options.currency) request.cartObject.cart.currency = options.currency;
      if (options.items) request.cartObject.cart.items = options.items;
      const cartId = await createCartId(stack.apiUrl, request);
      return { cartId, handle: handleOf(cartId) };
    },

    /**
     * A session started directly, for OTP timings the API never sets (and, with `recoveryReminderMs`,
     * a reminder delay in milliseconds). The ledger row is written as the API would, from `options`'
     * cart, since the workflow's activities record into it and read it.
     */
    async startSessionWithOtpPolicy(otpPolicy: Partial<OtpPolicy>, options: SessionOptions & { recoveryReminderMs?: number } = {}): Promise<Session> {
      const { recoveryReminderMs, ...cart } = options;
      const session = await this.createSession(cart);
      await session.handle.terminate('replaced by a session with test OTP timings');
      const cartId = session.cartId;
      await stack.db`update carts set status = 'pending' where cart_id = ${cartId}`;
      const input: CartSessionInput = {
        cartId,
        platformUuid,
        storeName: 'Test Store',
        amount: 4498,
        currency: 'EUR',
        expiresOn: new Date(Date.now() + stack.config.sessionLifetimeMs).toISOString(),
        lifetimeMs: stack.config.sessionLifetimeMs,
        paymentResolutionMs: stack.config.paymentResolutionMs,
        otpPolicy,
        ...(recoveryReminderMs !== undefined ? { recoveryReminderMs } : {}),
      };
      const handle = await startCartSession(stack.temporal.client, {
        taskQueue: stack.config.temporal.taskQueue,
        input,
        storeName: 'Test Store',
        workflowId: `${cartWorkflowId(cartId)}-policy`,
      });
      return { cartId, handle };
    },

    state: (s: Session) => s.handle.query(stateQuery),
    /**
     * `remind`: the customer ticked "Remind me if I don't finish" (a cart with recovery); `locale`: the page's language;
     * `contactKey`: the destination's keyed hash, as the page sends it (saved cards are the verified contact's by it).
     */
    sendCode: (s: Session, contact = 'jane.doe@example.com', options: { remind?: boolean; locale?: string; contactKey?: string; cardKey?: string } = {}) =>
      started(s).then(() => s.handle.executeUpdate(sendCodeUpdate, { args: [{ contact, ...options }] })),
    resendCode: (s: Session) => started(s).then(() => s.handle.executeUpdate(resendCodeUpdate)),
    verify: (s: Session, code: string) =>
      started(s).then(() => s.handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash: otpHash(keyring, s.cartId, code) }] })),
    cancel: (s: Session) => started(s).then(() => s.handle.executeUpdate(cancelUpdate)),

    /** The code the sandbox outbox "sent", as the customer would read it on their phone. */
    async sentCode(s: Session): Promise<string> {
      const sent = await readLatestOutboxCode(stack.db, keyring, s.cartId);
      if (!sent) throw new Error(`no code in the outbox for ${s.cartId}`);
      return sent.code;
    },

    /** Contact → code from the outbox → verified, ready for the card. */
    async verifiedSession(options: SessionOptions = {}): Promise<Session> {
      const s = await this.createSession(options);
      await this.sendCode(s);
      const state = await this.verify(s, await this.sentCode(s));
      expect(state.step).toBe('card');
      return s;
    },

    /** What the web tier does with the card form: check it, vault it, hand the workflow a token. */
    async vaultCard(s: Session, number: string, expiry = '12/30', cvv = '123') {
      const checked = checkCard({ number, expiry, cvv }, new Date());
      if (!checked.ok) throw new Error(`test card rejected: ${JSON.stringify(checked.errors)}`);
      const { token } = await storeCard(stack.db, keyring, s.cartId, checked.card);
      return { cardToken: token, brand: checked.card.brand, last4: checked.card.last4 };
    },

    /**
     * Pay as the page does (accepted, not awaited) with a card that asks for a 3-D Secure challenge,
     * and wait for the session to send the customer to it: the challenge, by its payment's id.
     */
    async startPayment(s: Session, number: string): Promise<{ chargeId: string; redirectUrl: string }> {
      const card = await this.vaultCard(s, number);
      await started(s);
      await s.handle.startUpdate(payUpdate, { args: [card], updateId: `pay-${s.cartId}`, waitForStage: WorkflowUpdateStage.ACCEPTED });
      const state = await waitFor(
        async () => {
          const now = await s.handle.query(stateQuery);
          return now.step === 'authenticating' ? now : undefined;
        },
        { what: `the 3-D Secure challenge of ${s.cartId}` },
      );
      const redirectUrl = state.authentication!.redirectUrl;
      return { chargeId: new URL(redirectUrl).searchParams.get('payment')!, redirectUrl };
    },

    async pay(s: Session, number: string, expiry?: string, cvv?: string, updateId = `pay-${s.cartId}`): Promise<CartSessionState> {
      const card = await this.vaultCard(s, number, expiry, cvv);
      await started(s);
      return s.handle.executeUpdate(payUpdate, { args: [card], updateId });
    },

    /** Pay as the page does with saved cards: a vaulted card with the consent to save it, or a saved card's id. */
    payWith: (s: Session, card: { cardToken?: string; savedCardId?: string; save?: boolean; brand: string; last4: string }) =>
      started(s).then(() => s.handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${s.cartId}` })),
  };
}

/** The ApplicationFailure type a refused (or failed) update carries. */
export async function refusalOf(action: Promise<unknown>): Promise<string> {
  const error = await action.then(
    () => undefined,
    (e: unknown) => e,
  );
  return refusalIn(error);
}

/** The refusal type carried by `error`, which must be a validator's refusal of an update. */
export function refusalIn(error: unknown): string {
  if (!(error instanceof WorkflowUpdateFailedError)) throw new Error(`expected the update to be refused, got ${String(error)}`);
  if (!(error.cause instanceof ApplicationFailure) || !error.cause.type) throw new Error(`refusal without a type: ${String(error.cause)}`);
  return error.cause.type;
}

export async function historyEvents(handle: SessionHandle): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

/** How many times the workflow scheduled an activity of this type. */
export async function scheduledCount(handle: SessionHandle, activityType: string): Promise<number> {
  return (await historyEvents(handle)).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType).length;
}

export async function ledgerRow(stack: Pick<TestStack, 'db'>, cartId: string) {
  const [row] = await stack.db<{ status: string; payment_brand: string | null; payment_last4: string | null; failure_code: string | null }[]>`
    select status, payment_brand, payment_last4, failure_code from carts where cart_id = ${cartId}`;
  return row;
}

export async function recordedEvents(stack: Pick<TestStack, 'db'>, cartId: string) {
  const rows = await stack.db<
    {
      sequence: number;
      event: string;
      payload: {
        data: { status: string; payment: { brand: string; last4: string } | null; failureCode: string | null; cancelledBy: string | null };
      };
    }[]
  >`
    select sequence, event, payload from webhook_events where cart_id = ${cartId} order by sequence`;
  return rows.map((r) => ({
    sequence: r.sequence,
    event: r.event,
    status: r.payload.data.status,
    // What the event says, a null (nothing yet) read as absent.
    payment: r.payload.data.payment ?? undefined,
    failureCode: r.payload.data.failureCode ?? undefined,
    cancelledBy: r.payload.data.cancelledBy ?? undefined,
  }));
}

export async function vaultCount(stack: TestStack, cartId: string): Promise<number> {
  const [row] = await stack.db<{ count: number }[]>`select count(*)::int as count from card_vault where cart_id = ${cartId}`;
  return row!.count;
}
