import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { markCustomerStarted } from '../../core/checkout/cart-ledger.js';
import { listen } from '../../core/http-service.js';
import type { MessageSender } from '../../core/checkout/otp/sender.js';
import type { ChargeRequest, PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { answeringProcessor } from '../support/payment-processors.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { merchantApi, type ErrorBody } from '../support/merchant-api.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { connectTemporal } from '../../core/temporal/connection.js';
import { createWebApp } from '../../web/app.js';
import { assetIntegrity, assetPath } from '../../web/assets.js';
import { QUERY_DEADLINE_MS } from '../../web/checkout/load-session.js';
import { stateQuery } from '../../workflows/cart-session/messages.js';
import { freePort } from '../../scripts/free-port.js';
import { createCartId, postCart, validCartRequest } from '../support/fixtures.js';
import { postCheckoutForm, visitCheckout, type Visit } from '../support/checkout-forms.js';
import { useTestStack } from '../support/test-stack.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';

const SECURITY_HEADERS = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"];

function expectLockedDown(res: Response) {
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of SECURITY_HEADERS) expect(csp).toContain(directive);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('the checkout page over HTTP', () => {
  let platformUuid: string;
  /**
   * Stands in for the acquirer: counts authorizations, slowly enough for two clicks to overlap. A cart
   * in `held` gets no answer until the test resolves its promise: a payment kept in progress.
   */
  const authorizations: ChargeRequest[] = [];
  const held = new Map<string, Promise<void>>();
  const paymentProcessor: PaymentProcessor = answeringProcessor('recording', async (request) => {
    authorizations.push(request);
    await (held.get(request.idempotencyKey) ?? new Promise((r) => setTimeout(r, 300)));
    return { outcome: 'approved', chargeId: `ch_${request.idempotencyKey}` };
  });

  const stack = useTestStack({}, { paymentProcessor });
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Page Store' })).platformUuid;
  });

  async function createCart(): Promise<string> {
    const body = validCartRequest(platformUuid);
    body.cartObject.cart.merchantUrls.failureUrl = 'https://store.example/failure?ref=abc';
    return createCartId(stack.apiUrl, body);
  }

  const visit = (cartId: string, cookie?: string) => visitCheckout(stack.checkoutUrl, cartId, cookie);
  const post = (path: string, cartId: string, at: Visit, fields: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    postCheckoutForm(stack.checkoutUrl, path, cartId, at, fields, headers);

  const state = (cartId: string) => stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).query(stateQuery);

  describe('pages for links that cannot be paid', () => {
    it.each([
      ['a well-formed token that names no cart', '?token=AAAAAAAAAAAAAAAAAAAAAAAA'],
      ['a malformed token', `?token=${encodeURIComponent('<script>alert(1)</script>')}`],
      ['no token at all', ''],
    ])('answers 404 for %s, as a locked-down HTML page', async (_, query) => {
      const res = await fetch(`${stack.checkoutUrl}/${query}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expectLockedDown(res);
      const html = await res.text();
      expect(html).toContain('Checkout not found');
      expect(html).not.toContain('<script>alert');
    });

    it('answers 410 with a link back to the store once the session was used (cancelled)', async () => {
      const cartId = await createCart();
      const page = await visit(cartId);
      const cancel = await post('/cancel', cartId, page);
      expect(cancel.status).toBe(303);
      expect(cancel.headers.get('location')).toBe(`https://store.example/failure?ref=abc&cartId=${cartId}`);

      const again = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
      expect(again.status).toBe(410);
      expectLockedDown(again);
      const html = await again.text();
      expect(html).toContain('This checkout has already been used');
      expect(html).toContain('href="https://store.example"');
    });
  });

  describe('headers and markup', () => {
    it('sends CSP without inline script or style, allows forms to land only on us and the merchant, and sets a strict cookie', async () => {
      const cartId = await createCart();
      const res = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
      expect(res.status).toBe(200);
      expectLockedDown(res);
      expect(res.headers.get('content-security-policy')).toContain("form-action 'self' https://store.example;");
      expect(res.headers.get('strict-transport-security')).toBeNull(); // sandbox over http here; production sends it
      const cookie = res.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^checkout_csrf=[A-Za-z0-9_-]{22};/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).not.toMatch(/Secure/);

      const html = await res.text();
      // Every script comes from our origin; no inline script, handler or style attribute.
      expect(html.match(/<script[^>]*>/g)).toEqual(
        (['htmx.min.js', 'checkout.js'] as const).map(
          (name) => `<script src="${assetPath(name)}" integrity="${assetIntegrity(name)}" crossorigin="anonymous" defer>`,
        ),
      );
      expect(assetPath('checkout.js')).toMatch(/^\/assets\/checkout\.[0-9a-f]{12}\.js$/);
      expect(html).not.toMatch(/\son[a-z]+=|\sstyle=|<style/i);
      for (const label of ['Phone or email']) expect(html).toContain(`>${label}</label>`);
      expect(html).toContain('>Send code</button>');
      expect(html).toContain('>Cancel</button>');
    });

    it('serves htmx and the page script from our own origin, hashed names cached for a year, compressed as asked', async () => {
      for (const name of ['htmx.min.js', 'checkout.js'] as const) {
        const res = await fetch(`${stack.checkoutUrl}${assetPath(name)}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(res.headers.get('content-encoding')).toBe('br');
        expect((await fetch(`${stack.checkoutUrl}/assets/${name}`)).headers.get('cache-control')).toBe('no-cache');
      }
      const gzipped = await fetch(`${stack.checkoutUrl}${assetPath('checkout.css')}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      expect(await gzipped.text()).toContain('{');
      const plain = await fetch(`${stack.checkoutUrl}${assetPath('checkout.css')}`, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect((await fetch(`${stack.checkoutUrl}/assets/../app.ts`)).status).toBe(404);
      expect((await fetch(`${stack.checkoutUrl}/assets/checkout.000000000000.js`)).status).toBe(404);
    });
  });

  describe('CSRF', () => {
    it('refuses a post without the form token, with another cart’s token, or without the cookie, and changes nothing', async () => {
      const cartId = await createCart();
      const other = await createCart();
      const page = await visit(cartId);
      const otherPage = await visit(other, page.cookie);

      const attempts = [
        post('/cancel', cartId, { ...page, csrf: '' }),
        post('/cancel', cartId, { ...page, csrf: otherPage.csrf }),
        post('/cancel', cartId, { ...page, cookie: '' }),
        post('/cancel', cartId, { ...page, cookie: (await visit(cartId)).cookie }),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(403);
        expect(await res.text()).toContain('For your security this form expired');
      }
      expect((await state(cartId)).status).toBe('pending');
    });

    it('refuses a post whose Origin is another site, even with a valid token', async () => {
      const cartId = await createCart();
      const page = await visit(cartId);
      const res = await post('/cancel', cartId, page, {}, { origin: 'https://evil.example' });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('Request blocked');
      expect((await state(cartId)).status).toBe('pending');
    });
  });

  describe('actions', () => {
    it('answers htmx with the next panel in place, and with HX-Redirect at the end', async () => {
      const cartId = await createCart();
      const page = await visit(cartId);
      const htmx = { 'hx-request': 'true' };
      const sent = await post('/contact', cartId, page, { contact: 'customer@example.com' }, htmx);
      expect(sent.status).toBe(200);
      const panel = await sent.text();
      expect(panel).toMatch(/^<section id="step"/);
      expect(panel).toContain('>One-time code</label>');
      expect(panel).toContain('c***@example.com');

      const wrong = await post('/code', cartId, page, { code: '12345' }, htmx);
      expect(wrong.status).toBe(422);
      expect(await wrong.text()).toContain('Enter the 6-digit code we sent you.');

      const cancel = await post('/cancel', cartId, page, {}, htmx);
      expect(cancel.status).toBe(200);
      expect(cancel.headers.get('hx-redirect')).toBe(`https://store.example/failure?ref=abc&cartId=${cartId}`);
    });

    it('charges once when Pay is posted twice at the same time, and both posts answer with the outcome', async () => {
      const cartId = await createCart();
      const page = await visit(cartId);
      expect((await post('/contact', cartId, page, { contact: 'customer@example.com' })).status).toBe(303);
      expect((await post('/code', cartId, page, { code: stack.config.sandboxOtp })).status).toBe(303);
      const card = { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' };
      const answers = await Promise.all([post('/card', cartId, page, card), post('/card', cartId, page, card)]);
      // The later post found the payment processing and waited on the same update's outcome.
      for (const res of answers) {
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe(`https://store.example/success?cartId=${cartId}`);
      }
      expect((await state(cartId)).status).toBe('paid');
      expect(authorizations.filter((a) => a.idempotencyKey === cartId)).toHaveLength(1);
      const history = await stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).fetchHistory();
      const payUpdates = history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === `pay-${cartId}`);
      expect(payUpdates).toHaveLength(1);
      // The second click may have sealed a second copy before it saw the first payment: none stays.
      await expect.poll(async () => (await stack.db`select 1 from card_vault where cart_id = ${cartId}`).length, { timeout: 10_000 }).toBe(0);

      const done = await fetch(`${stack.checkoutUrl}/status?token=${cartId}`, { redirect: 'manual' });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`https://store.example/success?cartId=${cartId}`);
    });

    it('shows the workflow’s refusal at the field: a resend asked for before the 30 s are up', async () => {
      const cartId = await createCart();
      const page = await visit(cartId);
      await post('/contact', cartId, page, { contact: '+33 6 12 34 56 78' });
      const res = await post('/resend-code', cartId, page);
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toMatch(/<p class="field-error" id="code-error" role="alert">[^<]+<\/p>/);
      expect(html).not.toContain('We could not do that right now');
      expect(html).toContain('•••• 5678');
      expect((await state(cartId)).otp?.resendsLeft).toBe(3);
    });

    it('answers a bad card with 422 at its fields, without echoing the number or the CVV', async () => {
      const cartId = await createCart();
      const page = await visit(cartId);
      await post('/contact', cartId, page, { contact: 'customer@example.com' });
      await post('/code', cartId, page, { code: stack.config.sandboxOtp });
      const res = await post('/card', cartId, page, { number: '4111 1111 1111 1112', expiry: '12/30', cvv: '987' });
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toContain('This card number is not valid');
      // The session's expiry time is on the page, and its milliseconds may be .987: times are not echoes.
      expect(html.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '')).not.toMatch(/1112|987/);
      expect((await state(cartId)).step).toBe('card');
    });
  });

  describe('the merchant ends a session (POST /v2/merchant/carts/{cartId}/expire)', () => {
    let receiver: WebhookReceiver;
    let merchant: CreatedMerchant;
    let api: ReturnType<typeof merchantApi>;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      merchant = await stack.createMerchant({ name: 'Ticket Store', webhookUrl: receiver.url });
      api = merchantApi(stack, merchant.apiKey);
    });
    afterAll(() => receiver?.close());

    const merchantCart = () => {
      const body = validCartRequest(merchant.platformUuid);
      body.cartObject.cart.merchantUrls.failureUrl = 'https://store.example/sold-out?show=42';
      return createCartId(stack.apiUrl, body);
    };
    /** The events the receiver acknowledged for this cart, each verified over its raw bytes with the merchant's secret. */
    const verifiedEvents = (cartId: string): WebhookEventBody[] =>
      [...receiver.processed.values()].flatMap((request) => {
        const verified = verifyWebhook(request.rawBody, request.headers, merchant.webhookSecret);
        if (!verified.valid) throw new Error(`a webhook failed verification: ${verified.reason}`);
        return verified.event.data.cartId === cartId ? [verified.event] : [];
      });
    async function expectRefusal(res: Response, status: number, code: string) {
      const body = (await res.json()) as ErrorBody;
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(body).toMatchObject({ code, errors: [{ path: 'cartId' }], requestId: res.headers.get('x-request-id') });
    }

    it('answers 200 on an open session: the page says the store closed it, in its language, and order_cancelled says cancelledBy merchant', async () => {
      const cartId = await merchantCart();
      const page = await visit(cartId);
      expect((await post('/contact', cartId, page, { contact: 'customer@example.com' })).status).toBe(303);

      const res = await api.expire(cartId);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ cartId, status: 'cancelled', cancelledBy: 'merchant' });
      expect(await stack.db`select status, cancelled_by from carts where cart_id = ${cartId}`).toEqual([{ status: 'cancelled', cancelled_by: 'merchant' }]);

      // The customer's next step lands on the page that says so, not silently on the failure page.
      const next = await post('/code', cartId, page, { code: stack.config.sandboxOtp }, { 'hx-request': 'true' });
      expect(next.headers.get('hx-redirect')).toBe(`/?token=${cartId}`);
      const closed = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
      expect(closed.status).toBe(410);
      expectLockedDown(closed);
      const html = await closed.text();
      expect(html).toContain('The store closed this checkout');
      // The store's name as the cart gave it, escaped like everything merchant-supplied.
      expect(html).toContain('Test Store ended this checkout before it was paid');
      expect(html).toContain(`href="https://store.example/sold-out?show=42&amp;cartId=${cartId}"`);
      const french = await (await fetch(`${stack.checkoutUrl}/?token=${cartId}&lang=fr`)).text();
      expect(french).toContain('La boutique a fermé ce paiement');

      await expect
        .poll(() => verifiedEvents(cartId).map((e) => [e.event, e.data.status, e.data.cancelledBy]), { timeout: 15_000 })
        .toEqual([['order_cancelled', 'cancelled', 'merchant']]);

      await expectRefusal(await api.expire(cartId), 409, 'SESSION_ENDED');
      await expectRefusal(await api.expire('AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
      // Another merchant's open cart is not this merchant's to end: the same 404 as an unknown one.
      await expectRefusal(await api.expire(await createCart()), 404, 'NOT_FOUND');
      expect((await fetch(`${stack.apiUrl}/v2/merchant/carts/${cartId}/expire`, { method: 'POST' })).status).toBe(401);
    });

    it('answers 409 PAYMENT_IN_PROGRESS while the processor has not answered, and SESSION_ENDED once it has', async () => {
      const cartId = await merchantCart();
      let answer!: () => void;
      held.set(cartId, new Promise<void>((resolve) => (answer = resolve)));
      const page = await visit(cartId);
      await post('/contact', cartId, page, { contact: 'customer@example.com' });
      await post('/code', cartId, page, { code: stack.config.sandboxOtp });
      expect((await post('/card', cartId, page, { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' })).status).toBe(303);
      await expect.poll(() => authorizations.some((a) => a.idempotencyKey === cartId), { timeout: 15_000 }).toBe(true);

      await expectRefusal(await api.expire(cartId), 409, 'PAYMENT_IN_PROGRESS');
      answer();
      await expect.poll(async () => (await state(cartId)).status, { timeout: 15_000 }).toBe('paid');
      await expectRefusal(await api.expire(cartId), 409, 'SESSION_ENDED');
      await expect.poll(() => verifiedEvents(cartId).map((e) => e.event), { timeout: 15_000 }).toEqual(['order_updated', 'order_created']);
    });
  });

  // Each waits out a deadline; side by side, the file waits for one.
  describe.concurrent('when Temporal cannot answer', () => {
    it('answers a friendly 503 within the deadline when no worker serves the cart', async () => {
      const noWorker = { ...stack.config, temporal: { ...stack.config.temporal, taskQueue: `no-worker-${Date.now()}` } };
      // The API needs a real socket (it reads the client address from it).
      const api = await listen(createApiApp({ ...stack, config: noWorker }).fetch, { hostname: '127.0.0.1' });
      const created = await postCart(api.url, validCartRequest(platformUuid)).finally(() => api.close());
      expect(created.status).toBe(200);
      const { cartId } = ((await created.json()) as { data: { cartId: string } }).data;
      // A customer who already acted: only then does a load ask the workflow (a first load does not).
      await markCustomerStarted(stack.db, cartId);

      const started = Date.now();
      const res = await createWebApp({ ...stack, config: noWorker }).request(`/?token=${cartId}`);
      expect(res.status).toBe(503);
      // The deadline waits out a dead worker's replacement; a queue no worker ever polls outlasts it.
      expect(Date.now() - started).toBeLessThan(QUERY_DEADLINE_MS + 3_000);
      expectLockedDown(res);
      expect(await res.text()).toContain('Checkout temporarily unavailable');
    });

    it('answers 503 when the Temporal server is unreachable', async () => {
      const cartId = await createCart();
      await markCustomerStarted(stack.db, cartId);
      const unreachable = connectTemporal({ keyring: stack.config.keyring, temporal: { ...stack.config.temporal, address: `127.0.0.1:${await freePort()}` } });
      try {
        const res = await createWebApp({ ...stack, temporal: unreachable }).request(`/?token=${cartId}`);
        expect(res.status).toBe(503);
      } finally {
        await unreachable.close();
      }
    });
  });
});

describe('the checkout page in production', () => {
  // Production refuses the sandbox OTP outbox and simulator: these stand in for the real providers.
  const otpSender: MessageSender = { name: 'silent', send: async () => {} };
  const paymentProcessor = answeringProcessor('refusing', () => Promise.resolve({ outcome: 'declined', declineCode: 'card_declined' }));
  const stack = useTestStack({ CHECKOUT_ENV: 'production' }, { otpSender, paymentProcessor });
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Live Store' })).platformUuid;
  });

  it('shows no sandbox values, sends HSTS and marks the CSRF cookie Secure', async () => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    const res = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(res.headers.get('set-cookie')).toMatch(/; Secure/);
    const html = await res.text();
    expect(html).not.toMatch(/Test mode|123456|4111/);
  });
});
