import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CREATE_CART_EXAMPLE, EXAMPLE_PLATFORM_UUID } from '../../api/docs/openapi.js';
import { ERROR_STATUS, type ErrorCode } from '../../api/errors.js';
import { insertMerchant } from '../../core/merchants/merchant-store.js';
import { newWebhookSecret, setRequireApiKey } from '../../core/merchants/merchants.js';
import { COUNTRY_CODES, PAYABLE_CURRENCIES } from '../../core/checkout/cart-schema.js';
import { postCart } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

interface Document {
  paths: Record<
    string,
    {
      post: {
        requestBody: { content: Record<string, { example: unknown }> };
        parameters?: Array<{ name: string; example?: string }>;
        responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { code: ErrorCode } }> }> }>;
      };
    }
  >;
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
}

/** Checks an answer against the document itself: its status is documented, and its body matches that status's schema. */
function contract(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: 'openapi' });
  const operation = document.paths['/v2/public/api/cart/']!.post;
  return {
    operation,
    async check(res: Response): Promise<{ status: number; body: unknown }> {
      const status = String(res.status);
      const body: unknown = await res.json();
      expect(Object.keys(operation.responses), `status ${status} is documented`).toContain(status);
      const validate = ajv.compile({ $ref: `openapi#/paths/~1v2~1public~1api~1cart~1/post/responses/${status}/content/application~1json/schema` });
      expect(validate(body), `${status} ${JSON.stringify(body)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      return { status: res.status, body };
    },
  };
}

describe('the OpenAPI document tells the truth about create-cart', () => {
  const stack = useTestStack();
  const limited = useTestStack({ RATE_LIMIT_PER_CLIENT: '1' });

  const documentOf = async (apiUrl: string) => (await (await fetch(`${apiUrl}/openapi.json`)).json()) as Document;

  it('lists the currencies and countries the server accepts, as enums', async () => {
    const { components } = await documentOf(stack.apiUrl);
    expect(components.schemas.Cart!.properties.currency!.enum).toEqual(PAYABLE_CURRENCIES);
    expect(components.schemas.Cart!.properties.country!.enum).toEqual(COUNTRY_CODES);
    expect(PAYABLE_CURRENCIES).toContain('EUR');
    expect(PAYABLE_CURRENCIES).not.toContain('XAU');
  });

  it('accepts the documented request exactly as written, and answers it as documented', async () => {
    const document = await documentOf(stack.apiUrl);
    const api = contract(document);
    const example = api.operation.requestBody.content['application/json']!.example;
    expect(example).toEqual(CREATE_CART_EXAMPLE);
    await insertMerchant(stack.db, {
      platformUuid: EXAMPLE_PLATFORM_UUID,
      name: 'Demo Store',
      environment: 'sandbox',
      webhookUrl: 'http://localhost:9/webhooks',
      sealedSecret: stack.config.keyring.seal(newWebhookSecret()),
    });
    const first = await api.check(await postCart(stack.apiUrl, example, { 'idempotency-key': 'openapi-example-0001' }));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 'SUCCESS', data: { cartData: CREATE_CART_EXAMPLE.cartObject } });
    const replay = await postCart(stack.apiUrl, example, { 'idempotency-key': 'openapi-example-0001' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.check(replay)).body).toEqual(first.body);
  });

  it('documents every error it answers, with examples whose code carries the documented status', async () => {
    const document = await documentOf(stack.apiUrl);
    const api = contract(document);
    for (const [status, response] of Object.entries(api.operation.responses)) {
      for (const { value } of Object.values(response.content?.['application/json']?.examples ?? {}))
        expect(String(ERROR_STATUS[value.code]), value.code).toBe(status);
    }

    const example = CREATE_CART_EXAMPLE;
    const url = `${stack.apiUrl}/v2/public/api/cart/`;
    const answers = [
      await api.check(await postCart(stack.apiUrl, '{"cartObject":')),
      await api.check(await postCart(stack.apiUrl, { cartObject: {} })),
      await api.check(await fetch(url)),
      await api.check(
        await postCart(
          stack.apiUrl,
          { cartObject: { ...example.cartObject, cart: { ...example.cartObject.cart, extra: { orderRef: 'order-43' } } } },
          { 'idempotency-key': 'openapi-example-0001' },
        ),
      ),
      await api.check(await postCart(stack.apiUrl, `{"pad":"${'x'.repeat(300 * 1024)}"}`)),
      await api.check(await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })),
      await api.check(
        await postCart(stack.apiUrl, {
          cartObject: { ...example.cartObject, store: { ...example.cartObject.store, platformUuid: '00000000-0000-4000-8000-000000000000' } },
        }),
      ),
    ];
    const strict = await stack.createMerchant({ name: 'Strict Store' });
    await setRequireApiKey(stack.db, strict.platformUuid, true);
    answers.push(
      await api.check(
        await postCart(stack.apiUrl, { cartObject: { ...example.cartObject, store: { ...example.cartObject.store, platformUuid: strict.platformUuid } } }),
      ),
    );
    await postCart(limited.apiUrl, example);
    answers.push(await contract(await documentOf(limited.apiUrl)).check(await postCart(limited.apiUrl, example)));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 405, 409, 413, 415, 422, 401, 429]);
  });
});
