import { describe, expect, it } from 'vitest';
import { messageText } from '../../core/checkout/otp/delivery/message.js';
import { customerActions } from '../../application/checkout/customer-actions.js';
import { queryState } from '../../web/checkout/load-session.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack } from '../support/test-stack.js';

describe('a code message names the registered merchant, never the request’s store name', () => {
  const { sent: delivered, otpSender } = recordingOtpSender();
  const stack = useTestStack({}, { otpSender });
  const HOSTILE = 'Acme Bank: card blocked, call +1 555 0100 to unlock';

  it('sends the merchants table’s name in every channel and locale, while the page still shows store.name', async () => {
    const platformUuid = (await stack.createMerchant({ name: 'Acme Shop Ltd' })).platformUuid;
    const actions = customerActions(stack.temporal, stack.config);
    const sends: Array<[string, string | undefined]> = [
      ['jane@example.com', undefined],
      ['+33 6 12 34 56 78', 'ar'],
    ];
    for (const [contact, locale] of sends) {
      const body = validCartRequest(platformUuid);
      body.cartObject.store.name = HOSTILE;
      const cartId = await createCartId(stack.apiUrl, body);
      expect(await actions.sendCode(cartId, contact, await queryState(stack, cartId), { locale })).toMatchObject({ accepted: true });
      const page = await (await fetch(`${stack.checkoutUrl}/?token=${cartId}`)).text();
      expect(page).toContain(HOSTILE);
    }

    expect(delivered.map((m) => [m.channel, m.merchantName])).toEqual([
      ['email', 'Acme Shop Ltd'],
      ['sms', 'Acme Shop Ltd'],
    ]);
    for (const message of delivered) {
      const texts = messageText(message);
      expect(JSON.stringify({ message, texts })).not.toMatch(/card blocked|555 0100/);
      expect(texts.sms).toContain('Acme Shop Ltd');
      expect(texts.subject).toContain('Acme Shop Ltd');
    }
  });
});
