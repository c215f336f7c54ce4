import { numberFormat } from '../../core/intl-formats.js';
import type { CartSessionState } from './messages.js';

/**
 * What the Temporal UI says about a cart session, in words an operator reads at a glance: the static
 * summary and details given at start, the current details the workflow keeps up to date, and the
 * summaries of its activities and timers. Workflow-safe. None of it may hold a contact, a code, a
 * card number beyond brand and last 4, or anything else the customer typed: it is shown to every
 * operator (and, like every payload, sealed by the codec at rest). test/unit/operator-details.test.ts
 * holds it to that.
 */

/** An amount in minor units as operators read it ("€39.00"), with the currency's own decimals. */
export function money(amountMinor: number, currency: string): string {
  // Built once per currency: building one per call was 3 % of the API's CPU per create-cart.
  const format = numberFormat('en', { style: 'currency', currency });
  return format.format(amountMinor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

export interface SessionFacts {
  /** The merchant's registered name (merchants.name), not the store name the request carried. */
  merchantName: string;
  environment: string;
  amount: number;
  currency: string;
  /** Units across every line of the cart. */
  itemCount: number;
  /** Absent: automatic. */
  captureMethod?: 'automatic' | 'manual';
}

/** The static summary (one line, the workflow list's "Summary") and details of a session, fixed at start. */
export function sessionMetadata(facts: SessionFacts): { staticSummary: string; staticDetails: string } {
  const items = `${facts.itemCount} item${facts.itemCount === 1 ? '' : 's'}`;
  return {
    staticSummary: `${facts.merchantName} (${facts.environment}): ${money(facts.amount, facts.currency)}, ${items}`,
    staticDetails: [
      `Merchant: ${facts.merchantName}`,
      `Environment: ${facts.environment}`,
      `Amount: ${money(facts.amount, facts.currency)} (${facts.currency})`,
      `Items: ${facts.itemCount}`,
      `Capture method: ${facts.captureMethod ?? 'automatic'}`,
    ].join('\n'),
  };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const clock = (iso: string) => `${iso.slice(11, 16)} UTC`;
const card = (payment: { brand: string; last4: string }) => `${payment.brand} ••${payment.last4}`;

/** Where the final event went: the session tried it itself; retries, if any, run in the cart's delivery workflow. */
const toMerchant = (event: string, cartId: string) => `${event} sent to the merchant (any retry: webhooks-${cartId})`;

/** What the session waits on or does right now, from its own state. */
export function currentDetails(state: CartSessionState, now: { sending?: boolean; resolvingUntil?: number; holdExpiresAt?: string } = {}): string {
  switch (state.status) {
    case 'paid':
      return `paid${state.payment ? ` with ${card(state.payment)}` : ''} — ${toMerchant('order_created', state.cartId)}`;
    case 'authorized':
      return now.holdExpiresAt
        ? `authorized${state.payment ? ` on ${card(state.payment)}` : ''}, not captured — waiting for the merchant's capture or void until ${now.holdExpiresAt.slice(0, 16)} UTC, then the hold is voided`
        : 'authorized — capturing or voiding the hold';
    case 'failed':
      return `failed: ${state.failureCode ?? 'unknown'} — ${toMerchant('order_updated', state.cartId)}`;
    case 'cancelled':
      return `cancelled by the ${state.cancelledBy === 'merchant' ? 'merchant (expire)' : 'customer'} — ${toMerchant('order_cancelled', state.cartId)}`;
    case 'abandoned':
      return `abandoned: the session expired — ${toMerchant('order_abandoned', state.cartId)}`;
    case 'processing': {
      if (state.authentication) return `waiting for the customer at their bank's 3-D Secure challenge, until ${clock(state.authentication.until)}`;
      const charging = `charging ${state.payment ? card(state.payment) : 'the card'}`;
      return now.resolvingUntil !== undefined
        ? `${charging}: no answer from the processor, asking it again until ${clock(new Date(now.resolvingUntil).toISOString())}`
        : charging;
    }
    default:
      break;
  }
  if (now.sending) return 'sending the one-time code';
  switch (state.step) {
    case 'contact':
      return `waiting for the customer's email or phone number — open until ${clock(state.expiresOn)}`;
    case 'code':
      return state.otp
        ? `waiting for the customer's code — ${plural(state.otp.attemptsLeft, 'attempt')} left, ${plural(state.otp.resendsLeft, 'resend')} left, code valid until ${clock(state.otp.codeExpiresAt)}`
        : "waiting for the customer's code";
    case 'card':
      return `code verified — waiting for the customer's card, open until ${clock(state.expiresOn)}`;
    case 'processing':
      return 'card submitted — starting the charge';
    default:
      return state.step;
  }
}

/** Minutes or seconds as a timer's summary says them ("45-minute", "4-second"). */
export function duration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000}-minute` : `${Math.ceil(ms / 1000)}-second`;
}
