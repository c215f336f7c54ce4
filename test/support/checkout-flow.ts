import { WorkflowUpdateFailedError } from '@temporalio/client';
import { payUpdate, sendCodeUpdate, stateQuery, verifyCodeUpdate } from '../../workflows/cart-session/messages.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { OTP_SEND_FAILED } from '../../core/checkout/session.js';
import { cartSessionDriver, refusalIn, type DrivenStack, type Session } from './cart-session-driver.js';

/**
 * Retries `action` while the stack cannot answer (a worker being killed, a server restarting) —
 * never when the workflow refused it: a refusal is an answer.
 */
export async function untilAnswered<T>(action: () => Promise<T>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await action();
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * One customer's checkout through the workflow's updates, each with a fixed update id so that a
 * retry after a crash is the same update (Temporal answers it once), through to the session's end.
 */
export async function checkoutThroughCrashes(stack: DrivenStack, platformUuid: string, card: string): Promise<{ session: Session; status: string }> {
  const driver = cartSessionDriver(stack, platformUuid);
  const session = await untilAnswered(() => driver.createSession());
  const { handle, cartId } = session;
  // A send that failed (its activity crashed three times) is refused as such: the customer sends again.
  for (let attempt = 1; ; attempt++) {
    try {
      await untilAnswered(() => handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'jane.doe@example.com' }], updateId: `send-${cartId}-${attempt}` }));
      break;
    } catch (error) {
      if (attempt === 3 || refusalIn(error) !== OTP_SEND_FAILED) throw error;
    }
  }
  const code = await untilAnswered(() => driver.sentCode(session));
  const codeHash = otpHash(stack.config.keyring, cartId, code);
  await untilAnswered(() => handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash }], updateId: `verify-${cartId}` }));
  const vaulted = await untilAnswered(() => driver.vaultCard(session, card));
  await untilAnswered(() => handle.executeUpdate(payUpdate, { args: [vaulted], updateId: `pay-${cartId}` }));
  const { status } = await untilAnswered(() => handle.result());
  return { session, status };
}

export async function stepOf(session: Session): Promise<string> {
  return (await untilAnswered(() => session.handle.query(stateQuery))).step;
}
