import { describe, expect, it } from 'vitest';
import type { CustomerMessage, MessageSender } from '../../core/checkout/otp/sender.js';
import { customerActions } from '../../application/checkout/customer-actions.js';
import { queryState } from '../../web/checkout/load-session.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

describe('a code that could not be sent leaves the checkout able to try again', () => {
  let failuresLeft = 0;
  const delivered: CustomerMessage[] = [];
  const otpSender: MessageSender = {
    name: 'flaky',
    send(message) {
      if (failuresLeft > 0) {
        failuresLeft--;
        return Promise.reject(new Error('provider unavailable'));
      }
      delivered.push(message);
      return Promise.resolve();
    },
  };
  const stack = useTestStack({}, { otpSender });

  const newCart = async () => createCartId(stack.apiUrl, validCartRequest((await stack.createMerchant()).platformUuid));

  it('fails one Send code after the sender failed three times, then sends on the next, to the same or another contact', async () => {
    const actions = customerActions(stack.temporal, stack.config);
    const cartId = await newCart();
    failuresLeft = 3; // the activity's three attempts of the first Send code

    const first = await actions.sendCode(cartId, 'jane@example.com', await queryState(stack, cartId));
    expect(first).toEqual({ accepted: false, reason: 'rejected', code: 'otp_send_failed', message: 'The code could not be sent. Try again.' });
    expect(failuresLeft).toBe(0);
    expect(delivered).toHaveLength(0);

    const second = await actions.sendCode(cartId, '+33 6 12 34 56 78', await queryState(stack, cartId));
    expect(second).toMatchObject({ accepted: true, state: { step: 'code', contactHint: '•••• 5678' } });
    expect(delivered.map((m) => m.address)).toEqual(['+33612345678']);
    // The failed attempt does not count against the resend limit.
    expect(second.accepted && second.state.otp?.resendsLeft).toBe(3);
  });

  it('still treats a double click as one Send code', async () => {
    const actions = customerActions(stack.temporal, stack.config);
    const cartId = await newCart();
    const state = await queryState(stack, cartId);
    const before = delivered.length;
    const results = await Promise.all([actions.sendCode(cartId, 'jane@example.com', state), actions.sendCode(cartId, 'jane@example.com', state)]);
    expect(results.map((r) => r.accepted)).toEqual([true, true]);
    expect(delivered.length - before).toBe(1);
  });
});
