import { beforeAll, describe, expect, it } from 'vitest';
import type { ChargeRequest, PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { answeringProcessor } from '../support/payment-processors.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack } from '../support/test-stack.js';
import { cartSessionDriver, ledgerRow, refusalOf } from '../support/cart-session-driver.js';
import { ACTION_REFUSED } from '../../core/checkout/session.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('one-time codes: resend window and limit, code lifetime (short test timings)', () => {
  const stack = useTestStack();
  let driver: ReturnType<typeof cartSessionDriver>;
  beforeAll(async () => {
    driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  });

  it('allows three resends, each only after the interval, and only the newest code works', async () => {
    const s = await driver.startSessionWithOtpPolicy({ resendIntervalMs: 1_000 });
    await driver.sendCode(s);
    const first = await driver.sentCode(s);
    expect(await refusalOf(driver.resendCode(s))).toBe(ACTION_REFUSED.resendTooSoon);

    for (let resendsLeft = 2; resendsLeft >= 0; resendsLeft--) {
      await sleep(1_100);
      expect(await driver.resendCode(s)).toMatchObject({ step: 'code', otp: { resendsLeft } });
    }
    await sleep(1_100);
    expect(await refusalOf(driver.resendCode(s))).toBe(ACTION_REFUSED.resendLimit);
    // A different contact is a resend as well, so it is refused too.
    expect(await refusalOf(driver.sendCode(s, '+4915112345678'))).toBe(ACTION_REFUSED.resendLimit);

    const latest = await driver.sentCode(s);
    if (latest !== first) {
      expect(await driver.verify(s, first)).toMatchObject({ step: 'code', otp: { attemptsLeft: 4 } });
    }
    expect(await driver.verify(s, latest)).toMatchObject({ step: 'card' });
  });

  it('sends to a corrected contact as a resend, showing the new hint', async () => {
    const s = await driver.startSessionWithOtpPolicy({ resendIntervalMs: 500 });
    await driver.sendCode(s, 'typo@example.con');
    await sleep(600);
    expect(await driver.sendCode(s, '+44 7700 900123')).toMatchObject({ contactHint: '•••• 0123', otp: { resendsLeft: 2 } });
    expect(await driver.verify(s, await driver.sentCode(s))).toMatchObject({ step: 'card' });
  });

  it('refuses a code after its lifetime, without counting it as a wrong code', async () => {
    const s = await driver.startSessionWithOtpPolicy({ codeLifetimeMs: 1_000, resendIntervalMs: 1_000 });
    await driver.sendCode(s);
    const code = await driver.sentCode(s);
    await sleep(1_200);
    expect(await refusalOf(driver.verify(s, code))).toBe(ACTION_REFUSED.codeExpired);
    await driver.resendCode(s);
    expect(await driver.verify(s, await driver.sentCode(s))).toMatchObject({ step: 'card' });
  });
});

describe('one-time codes in production', () => {
  /** Stands in for the SMS/email provider a production deployment plugs in: the customer's phone. */
  const { sent: delivered, otpSender } = recordingOtpSender();
  /** Stands in for the acquirer; records what the authorization activity asked for. */
  const authorizations: ChargeRequest[] = [];
  const paymentProcessor: PaymentProcessor = answeringProcessor('recording', (request) => {
    authorizations.push(request);
    return Promise.resolve({ outcome: 'approved', chargeId: `ch_${request.idempotencyKey}` });
  });

  const stack = useTestStack({ CHECKOUT_ENV: 'production' }, { otpSender, paymentProcessor });
  let driver: ReturnType<typeof cartSessionDriver>;
  beforeAll(async () => {
    driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  });

  it('refuses the sandbox OTP, accepts the code the real sender delivered, and writes nothing to the outbox', async () => {
    const s = await driver.createSession();
    await driver.sendCode(s, '+33 6 12 34 56 78');
    const message = delivered.find((m) => m.cartId === s.cartId && m.kind === 'code');
    if (message?.kind !== 'code') throw new Error('no code was delivered');
    expect(message).toMatchObject({ channel: 'sms', address: '+33612345678', addressHint: '•••• 5678' });
    expect(message.code).toMatch(/^\d{6}$/);

    const sandboxOtp = message.code === stack.config.sandboxOtp ? '000000' : stack.config.sandboxOtp;
    expect(await driver.verify(s, sandboxOtp)).toMatchObject({ step: 'code', otp: { attemptsLeft: 4 } });
    expect(await driver.verify(s, message.code)).toMatchObject({ step: 'card' });
    const [outbox] = await stack.db<{ count: number }[]>`select count(*)::int as count from otp_outbox where cart_id = ${s.cartId}`;
    expect(outbox!.count).toBe(0);

    expect(await driver.pay(s, '4111 1111 1111 1111')).toMatchObject({ status: 'paid' });
    expect(authorizations.filter((a) => a.idempotencyKey === s.cartId)).toEqual([
      expect.objectContaining({ idempotencyKey: s.cartId, amount: 4498, currency: 'EUR', card: expect.objectContaining({ last4: '1111' }) }),
    ]);
    expect((await ledgerRow(stack, s.cartId))?.status).toBe('paid');
  });
});
