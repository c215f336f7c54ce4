import { describe, expect, it } from 'vitest';
import { otpMessageText } from '../../core/checkout/otp/delivery/message.js';

const message = (locale: string) =>
  otpMessageText({
    kind: 'code',
    cartId: 'cart_otp_message_test',
    channel: 'email',
    address: 'jane@example.com',
    addressHint: 'j***@example.com',
    code: '123456',
    codeLifetimeMs: 300_000,
    merchantName: 'Demo Store',
    locale,
  });

/** The code unlocks the customer's saved cards (docs/saved-cards.md): its message must not say it is harmless without the card. */
describe('the one-time code message', () => {
  it('tells the customer never to share the code, because it unlocks their saved cards', () => {
    const { text, html } = message('en');
    expect(text).toContain('Never share this code: it unlocks the cards you saved with Hosted Checkout.');
    expect(text).not.toMatch(/without your card/i);
    expect(html).toContain('Never share this code');
  });

  it.each([
    ['fr', /Ne partagez jamais ce code/],
    ['es', /No compartas nunca este código/],
    ['de', /Geben Sie diesen Code nie weiter/],
    ['ar', /لا تشارك هذا الرمز أبدًا/],
  ])('says so in %s too', (locale, never) => {
    const { text } = message(locale);
    expect(text).toMatch(never);
    expect(text).toContain('Hosted Checkout');
  });
});
