import { beforeAll, describe, expect, it } from 'vitest';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { merchantCli } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';

// The per-client bucket is shared by every file of the run (all from 127.0.0.1).
const NO_RATE_LIMIT = { RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000' };

type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }> };

const RLO = '\u202e';
const FIX = 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069): remove them, the checkout page sets the text direction itself';

/** Merchant text the checkout page shows, sent with a right-to-left override: refused, the field named. */
describe('bidirectional control characters in merchant display text', () => {
  const stack = useTestStack(NO_RATE_LIMIT);
  let merchant: { platformUuid: string; apiKey: string };
  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Bidi Store' });
  });

  async function expectRefused(res: Response, path: string): Promise<void> {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors).toEqual([{ path, message: FIX }]);
  }

  it('create-cart refuses U+202E in store.name, naming the field, and creates nothing', async () => {
    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.store.name = `Demo Store ${RLO}elpmaxe.live`;
    await expectRefused(await postCart(stack.apiUrl, request), 'cartObject.store.name');
    const [row] = await stack.db<{ n: number }[]>`select count(*)::int as n from carts where platform_uuid = ${merchant.platformUuid}`;
    expect(row!.n).toBe(0);
  });

  it.each([0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069].map((code) => [code.toString(16).toUpperCase(), String.fromCodePoint(code)]))(
    'create-cart refuses U+%s in an item title',
    async (_, control) => {
      const request = validCartRequest(merchant.platformUuid);
      request.cartObject.cart.items[0]!.title = `T-shirt ${control}XL`;
      await expectRefused(await postCart(stack.apiUrl, request), 'cartObject.cart.items[0].title');
    },
  );

  it('takes Arabic text with its directional marks (U+200F, U+061C): they reorder nothing', async () => {
    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.store.name = 'متجر\u200f التجربة\u061c';
    const res = await postCart(stack.apiUrl, request);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('a payment link refuses U+202E in its item title', async () => {
    const { cartObject } = validCartRequest(merchant.platformUuid);
    cartObject.cart.items[0]!.title = `Gift card ${RLO}001$`;
    const res = await fetch(`${stack.apiUrl}/v2/merchant/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cartObject }),
    });
    await expectRefused(res, 'cartObject.cart.items[0].title');
  });

  it('the operator API refuses U+202E in a new merchant’s name', async () => {
    const res = await fetch(`${stack.apiUrl}/operator/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Shop ${RLO}yaPlapyaP`, webhookUrl: 'http://127.0.0.1:9/webhooks' }),
    });
    await expectRefused(res, 'name');
  });

  it('the merchant CLI refuses U+202E in --name, as a usage error that says the fix', async () => {
    const refused = await merchantCli(stack)('create', '--name', `Shop ${RLO}yaPlapyaP`, '--webhook-url', 'http://127.0.0.1:9/webhooks');
    expect(refused).toMatchObject({ code: 2, json: { error: `--name ${FIX}` } });
  });
});
