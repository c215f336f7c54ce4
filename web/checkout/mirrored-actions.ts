import type { ActionResult, CustomerActions } from '../../application/checkout/customer-actions.js';
import { beginMirroredUpdate, finishMirroredUpdate } from '../../core/checkout/session-mirror.js';
import type { Db } from '../../core/db/client.js';
import type { CheckoutStep } from '../../core/checkout/session.js';
import type { CartSessionState } from '../../workflows/cart-session/messages.js';
import type { CheckoutSession } from './load-session.js';

/** What an action acts on: the session as the page read it, and the generation its state is current at. */
type Acting = Pick<CheckoutSession, 'cartId' | 'state' | 'stateGeneration'>;
type Card = Parameters<CustomerActions['pay']>[1];

/**
 * The customer's actions as the page sends them: each update inside the state mirror's protocol
 * (core/checkout/session-mirror.ts), so the state it answers is what the page's next load and post
 * read, with no Temporal query (docs/decisions/page-first-load.md, "The state mirror").
 */
export function mirroredActions(db: Db, actions: CustomerActions) {
  /**
   * An update that throws (Temporal unreachable, a deadline) leaves the mirror's in-flight count up:
   * it may still run, so that cart is read with queries from then on.
   */
  async function mirrored(cartId: string, seen: number | undefined, send: () => Promise<ActionResult>, keeps = kept): Promise<ActionResult> {
    const update = await beginMirroredUpdate(db, cartId, seen);
    const result = await send();
    await finishMirroredUpdate(db, update, result.accepted ? keeps(result.state) : undefined);
    return result;
  }

  /**
   * An update sent from the session as the page read it. By default its answer is kept unless it is
   * behind that state: then it is an earlier update's, repeated under its id.
   */
  const actingOn = (
    session: Acting,
    send: () => Promise<ActionResult>,
    keeps = (state: CartSessionState) => (behind(state, session.state) ? undefined : kept(state)),
  ) => mirrored(session.cartId, session.stateGeneration, send, keeps);

  return {
    sendCode: (session: Acting, contact: string, options: Parameters<CustomerActions['sendCode']>[3] = {}) =>
      actingOn(session, () => actions.sendCode(session.cartId, contact, session.state, options)),
    resendCode: (session: Acting) => actingOn(session, () => actions.resendCode(session.cartId, session.state)),
    verifyCode: (session: Acting, codeHash: string) => actingOn(session, () => actions.verifyCode(session.cartId, codeHash, session.state)),
    pay: (session: Acting, card: Card) => actingOn(session, () => actions.pay(session.cartId, card, session.state)),
    /** The answer of a Pay sent earlier was the state when it was sent, maybe not now: never kept. */
    paymentOutcome: (session: Acting) =>
      actingOn(
        session,
        () => actions.paymentOutcome(session.cartId, session.state),
        () => undefined,
      ),
    cancel: (session: Acting) => actingOn(session, () => actions.cancel(session.cartId)),
    /** The bank's return comes with no session read: it drops the copy, and the status page reads the outcome. */
    threeDSecureReturn: (cartId: string) => mirrored(cartId, undefined, () => actions.threeDSecureReturn(cartId)),
  };
}

/**
 * A payment still processing moves on with no update (the charge answers, the status page follows it),
 * so that state is never kept; every other answer is the session until its next update, or until an
 * end the ledger records (a terminal status, the expiry), which a load reads before the copy.
 */
const kept = (state: CartSessionState): CartSessionState | undefined => (state.step === 'processing' ? undefined : state);

const STEP_ORDER: Record<CheckoutStep, number> = { contact: 0, code: 1, card: 2, processing: 3, authenticating: 3, done: 4 };

/**
 * An update id is derived from the state it is sent from (application/checkout/customer-actions.ts), and
 * Temporal answers an id it has seen with that update's recorded answer: a code typed again after
 * another wrong one gets the state from before the other. Such an answer is behind the state acted on
 * (an earlier step, fewer sends, more tries left) and is not kept; a false alarm costs one query.
 */
function behind(answer: CartSessionState, acting: CartSessionState): boolean {
  const more = (a: number | undefined, b: number | undefined) => a !== undefined && b !== undefined && a > b;
  return (
    STEP_ORDER[answer.step] < STEP_ORDER[acting.step] ||
    (answer.sendAttempts ?? 0) < (acting.sendAttempts ?? 0) ||
    more(answer.otp?.attemptsLeft, acting.otp?.attemptsLeft) ||
    more(answer.otp?.resendsLeft, acting.otp?.resendsLeft) ||
    more(answer.rebind?.attemptsLeft, acting.rebind?.attemptsLeft) ||
    more(answer.rebind?.resendsLeft, acting.rebind?.resendsLeft)
  );
}
