import { beforeAll, describe, expect, it } from 'vitest';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { useTestStack } from '../support/test-stack.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';

describe('vertical slice: create a cart, see its workflow and its page', () => {
  const stack = useTestStack();
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Slice Store' })).platformUuid;
  });

  it('creates a cart whose workflow holds a 45-minute timer and whose page shows the cart', async () => {
    const before = Date.now();
    const res = await postCart(stack.apiUrl, validCartRequest(platformUuid));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { code: string; message: string; data: { cartId: string; expiresOn: string } };
    expect(body).toMatchObject({ code: 'SUCCESS', message: 'Cart created' });
    const { cartId, expiresOn } = body.data;
    expect(cartId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const expiry = Date.parse(expiresOn);
    expect(expiresOn).toBe(new Date(expiry).toISOString());
    expect(expiry - before).toBeGreaterThanOrEqual(45 * 60_000);
    expect(expiry - Date.now()).toBeLessThanOrEqual(45 * 60_000);

    const handle = stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId));
    const description = await handle.describe();
    expect(description.status.name).toBe('RUNNING');
    const timer = await waitFor(async () => (await handle.fetchHistory()).events?.find((e) => e.timerStartedEventAttributes), { what: 'the session timer' });
    expect(Number(timer?.timerStartedEventAttributes?.startToFireTimeout?.seconds)).toBe(45 * 60);

    const page = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Test Store');
    expect(html).toContain('T-shirt');
    expect(html).toContain('Socks');
    expect(html).toContain('€44.98');
  });

  it('answers 404 for a token that names no cart', async () => {
    const page = await fetch(`${stack.checkoutUrl}/?token=AAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(page.status).toBe(404);
  });

  it('reports the process alive and its dependencies ready', async () => {
    expect(await (await fetch(`${stack.apiUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${stack.apiUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  });
});
