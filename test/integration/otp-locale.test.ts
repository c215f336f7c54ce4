import { describe, expect, it } from 'vitest';
import type { CodeMessage, CustomerMessage, MessageSender } from '../../core/checkout/otp/sender.js';
import { messageText, otpMessageText } from '../../core/checkout/otp/delivery/message.js';
import { customerActions } from '../../application/checkout/customer-actions.js';
import { queryState } from '../../web/checkout/load-session.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

describe('the code message speaks the language of the page that asked for it', () => {
  const delivered: CustomerMessage[] = [];
  const otpSender: MessageSender = {
    name: 'capture',
    send(message) {
      delivered.push(message);
      return Promise.resolve();
    },
  };
  const stack = useTestStack({}, { otpSender });

  it('passes the locale from Send code to the sendOtp activity, and keeps it for a send without one', async () => {
    const actions = customerActions(stack.temporal, stack.config);
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const arabic = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    expect(await actions.sendCode(arabic, 'jane@example.com', await queryState(stack, arabic), { locale: 'ar' })).toMatchObject({ accepted: true });
    const plain = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    expect(await actions.sendCode(plain, 'jane@example.com', await queryState(stack, plain))).toMatchObject({ accepted: true });

    expect(delivered.map((m) => [m.cartId, m.locale])).toEqual([
      [arabic, 'ar'],
      [plain, undefined],
    ]);
    const [ar, en] = delivered.map(messageText);
    expect(ar!.sms).toContain('هو رمز الدفع الخاص بك');
    expect(ar!.html).toContain('<html lang="ar" dir="rtl">');
    expect(en!.sms).toMatch(/^\d{6} is your .+ checkout code\. It works for \d+ minutes?\. Do not share it\.$/);
  });
});

describe('otpMessageText', () => {
  const message: CodeMessage = {
    kind: 'code',
    cartId: 'c',
    channel: 'sms',
    address: '+33612345678',
    addressHint: '•••• 5678',
    code: '123456',
    merchantName: 'A & B',
    codeLifetimeMs: 600_000,
  };
  it('is English by default and for an unknown locale, escaping the merchant name in HTML', () => {
    for (const locale of [undefined, 'xx']) {
      const text = otpMessageText({ ...message, ...(locale ? { locale } : {}) });
      expect(text.subject).toBe('123456 is your A & B checkout code');
      expect(text.sms).toBe('123456 is your A & B checkout code. It works for 10 minutes. Do not share it.');
      expect(text.html).toContain('Your code to pay A &#38; B:');
    }
  });
  it('speaks Arabic for ar and ar-EG, with Arabic plurals', () => {
    expect(otpMessageText({ ...message, locale: 'ar-EG' }).text).toContain('رمزك للدفع لـ A & B: 123456');
    expect(otpMessageText({ ...message, locale: 'ar', codeLifetimeMs: 120_000 }).sms).toContain('دقيقتين');
  });
  it('speaks French, Spanish and German, with their plurals', () => {
    const oneMinute = { ...message, codeLifetimeMs: 60_000 };
    expect(otpMessageText({ ...message, locale: 'fr-BE' }).sms).toBe(
      '123456 est votre code de paiement A & B. Valable 10 minutes. Ne le communiquez à personne.',
    );
    expect(otpMessageText({ ...oneMinute, locale: 'fr' }).text).toContain('Il est valable 1 minute.');
    expect(otpMessageText({ ...message, locale: 'es-MX' }).subject).toBe('123456 es tu código de pago de A & B');
    expect(otpMessageText({ ...oneMinute, locale: 'es' }).sms).toContain('Válido durante 1 minuto.');
    expect(otpMessageText({ ...message, locale: 'de-AT' }).html).toContain('Ihr Code für die Zahlung an A &#38; B:');
    expect(otpMessageText({ ...oneMinute, locale: 'de' }).sms).toContain('1 Minute gültig.');
    expect(otpMessageText({ ...message, locale: 'de' }).sms).toContain('10 Minuten gültig.');
  });
});
