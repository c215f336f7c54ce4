import { ApplicationFailure, condition, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { PaymentRecord } from '../../core/checkout/payment-record.js';
import {
  ACTION_REFUSED,
  OTP_POLICY,
  TERMINAL_STATUSES,
  type ActionRefusal,
  type CancelledBy,
  type CartStatus,
  type CheckoutStep,
  type OtpPolicy,
} from '../../core/checkout/session.js';
import type { CartSessionInput, CartSessionState, ClockTarget, HoldDecision, HoldRefusalDetails } from './messages.js';
import { currentDetails } from './operator-details.js';

/**
 * The card the customer paid with, as the vault's token (`save`: they consented to keeping it), or in
 * a 1.2 session as a saved card's id (docs/saved-cards.md); never a number.
 */
export interface Card {
  cardToken?: string;
  savedCardId?: string;
  save?: boolean;
  brand: string;
  last4: string;
}

/** What ended the customer's part of the session before the timer did: the customer, or the merchant's expire. */
export type CustomerDecision = { kind: 'pay'; card: Card } | { kind: 'cancel'; by: CancelledBy } | { kind: 'locked_out' };

export interface Challenge {
  /** otpHashDigest of each code accepted (the one sent, and in sandbox SANDBOX_OTP); never a code or a hash that passes. */
  acceptedDigests: string[];
  sentAt: number;
  expiresAt: number;
}

export interface Contact {
  address: string;
  hint: string;
  key?: string;
  /** The exact contact's keyed hash its saved cards are kept under (messages.ts `cardKey`). */
  cardKey?: string;
  /** The page's language when the code was asked for: its messages (codes, the reminder) speak it. */
  locale?: string;
  /** The customer asked for a reminder if they do not finish (./reminder.ts); it counts once this contact is verified. */
  remind?: boolean;
}

/**
 * Everything one cart session knows, in one object: the workflow's handlers and steps change it, the
 * state query and the Temporal UI's current details read it. Times are workflow time (Date.now()).
 */
export class SessionState {
  readonly cartId: string;
  readonly otpPolicy: OtpPolicy;
  /** When the session stops accepting the customer's actions. */
  readonly closesAt: number;

  status: CartStatus = 'pending';
  contact: Contact | undefined;
  challenge: Challenge | undefined;
  sending = false;
  /** Send and resend updates that finished, sent or not: a new attempt's update id counts them. */
  sendAttempts = 0;
  resends = 0;
  wrongCodes = 0;
  verified = false;
  /** A fresh code for another browser of a verified session (./codes.ts), and its wrong tries. */
  rebinding: { challenge: Challenge; wrongCodes: number } | undefined;
  decision: CustomerDecision | undefined;
  /** When the customer pressed Pay: the page stops waiting on an outcome some time after. */
  paymentSubmittedAt: number | undefined;
  payment: PaymentRecord | undefined;
  failureCode: string | undefined;
  /** Until when an unanswered charge is being resolved, for the operator's current details. */
  resolvingUntil: number | undefined;
  /** A 3-D Secure challenge waiting for the customer at their bank, until the return or the bound. */
  authentication: { redirectUrl: string; until: number } | undefined;
  returnedFromBank = false;
  /** The outcome is in the ledger, its webhook event recorded and the vault emptied. */
  settled = false;
  /** Manual capture: until when the authorization is held, the decision that ends it, and once it is recorded. */
  holdExpiresAt: number | undefined;
  holdDecision: HoldDecision | undefined;
  capturedAmount: number | undefined;
  holdSettled = false;
  /** The timers the sandbox helpers' test clock fired early (./test-clock.ts), and whether a reminder waits for its delay. */
  clockAdvanced = new Set<ClockTarget>();
  reminderWaiting = false;

  constructor(readonly input: CartSessionInput) {
    this.cartId = input.cartId;
    this.otpPolicy = { ...OTP_POLICY, ...input.otpPolicy };
    this.closesAt = workflowInfo().startTime.getTime() + input.lifetimeMs;
  }

  step(): CheckoutStep {
    if (TERMINAL_STATUSES.has(this.status)) return 'done';
    if (this.authentication && !this.returnedFromBank) return 'authenticating';
    if (this.decision?.kind === 'pay') return 'processing';
    if (this.verified) return 'card';
    return this.challenge ? 'code' : 'contact';
  }

  /** Who ended the session: the customer's cancel, or the merchant's expire or void. */
  cancelledBy(): CancelledBy | undefined {
    if (this.decision?.kind === 'cancel') return this.decision.by;
    return this.holdDecision?.kind === 'void' ? 'merchant' : undefined;
  }

  /** The state query's answer, and what every update returns. */
  snapshot(): CartSessionState {
    const { cartId, status, contact, challenge, payment, authentication, failureCode, holdExpiresAt, capturedAmount } = this;
    return {
      cartId,
      status,
      step: this.step(),
      expiresOn: this.input.expiresOn,
      sendAttempts: this.sendAttempts,
      ...(contact ? { contactHint: contact.hint } : {}),
      ...(contact?.key ? { contactKey: contact.key } : {}),
      ...(contact?.cardKey && this.verified ? { cardKey: contact.cardKey } : {}),
      ...(challenge && !this.verified
        ? {
            otp: {
              attemptsLeft: this.otpPolicy.maxWrongCodes - this.wrongCodes,
              resendsLeft: this.otpPolicy.maxResends - this.resends,
              resendAvailableAt: new Date(challenge.sentAt + this.otpPolicy.resendIntervalMs).toISOString(),
              codeExpiresAt: new Date(challenge.expiresAt).toISOString(),
            },
          }
        : {}),
      ...(this.rebinding ? { rebind: this.rebindSnapshot(this.rebinding) } : {}),
      ...(payment ? { payment } : {}),
      ...(authentication && !this.returnedFromBank
        ? { authentication: { redirectUrl: authentication.redirectUrl, until: new Date(authentication.until).toISOString() } }
        : {}),
      ...(this.paymentSubmittedAt !== undefined ? { paymentSubmittedAt: new Date(this.paymentSubmittedAt).toISOString() } : {}),
      ...(failureCode ? { failureCode } : {}),
      ...(status === 'cancelled' && this.cancelledBy() ? { cancelledBy: this.cancelledBy() } : {}),
      ...(holdExpiresAt !== undefined
        ? { authorization: { holdExpiresAt: new Date(holdExpiresAt).toISOString(), ...(capturedAmount !== undefined ? { capturedAmount } : {}) } }
        : {}),
    };
  }

  private rebindSnapshot({ challenge, wrongCodes }: { challenge: Challenge; wrongCodes: number }): CartSessionState['rebind'] {
    return {
      attemptsLeft: this.otpPolicy.maxWrongCodes - wrongCodes,
      resendsLeft: this.otpPolicy.maxResends - this.resends,
      resendAvailableAt: new Date(challenge.sentAt + this.otpPolicy.resendIntervalMs).toISOString(),
      codeExpiresAt: new Date(challenge.expiresAt).toISOString(),
    };
  }

  /** The Temporal UI's current details, in words (./operator-details.ts); not part of history. */
  tell(): void {
    setCurrentDetails(
      currentDetails(this.snapshot(), {
        sending: this.sending,
        ...(this.resolvingUntil !== undefined ? { resolvingUntil: this.resolvingUntil } : {}),
        ...(this.holdExpiresAt !== undefined && !this.holdDecision ? { holdExpiresAt: new Date(this.holdExpiresAt).toISOString() } : {}),
      }),
    );
  }

  /** Actions that end the session answer once its outcome is recorded, so the page can redirect. */
  settledSnapshot(): Promise<CartSessionState> {
    return condition(() => this.settled).then(() => this.snapshot());
  }

  /** The merchant's capture and void answer once the hold's outcome is recorded. */
  holdSettledSnapshot(): Promise<CartSessionState> {
    return condition(() => this.holdSettled).then(() => this.snapshot());
  }

  // Validators are synchronous and throw: a refused action never enters history.

  requireOpen(): void {
    if (this.status !== 'pending' || this.decision) refuse(ACTION_REFUSED.sessionClosed, 'This checkout is no longer open.');
    if (Date.now() >= this.closesAt) refuse(ACTION_REFUSED.sessionClosed, 'This checkout has expired.');
  }
}

export function refuse(type: ActionRefusal, message: string, details?: HoldRefusalDetails): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true, ...(details ? { details: [details] } : {}) });
}
