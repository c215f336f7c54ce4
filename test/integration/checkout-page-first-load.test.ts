import { describe, expect, it } from 'vitest';
import { markCustomerStarted } from '../../core/checkout/cart-ledger.js';
import { connectTemporal } from '../../core/temporal/connection.js';
import { freePort } from '../../scripts/free-port.js';
import { createWebApp } from '../../web/app.js';
import { loadCheckoutSession } from '../../web/checkout/load-session.js';
import { cartWorkflowId, stateQuery } from '../../workflows/cart-session/messages.js';
import { historyEvents } from '../support/cart-session-driver.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useOwnDatabase } from '../support/own-database.js';
import { useTestStack } from '../support/test-stack.js';

describe('the checkout page’s first load, from the ledger', () => {
  // Its own database: one test makes PostgreSQL refuse the marker with a trigger on carts.
  const database = useOwnDatabase('page_first_load');
  const stack = useTestStack({ DATABASE_URL: database.url });

  const createCart = async () => createCartId(stack.apiUrl, validCartRequest((await stack.createMerchant()).platformUuid));
  const marker = async (cartId: string) =>
    (await stack.db<{ customer_started_at: Date | null }[]>`select customer_started_at from carts where cart_id = ${cartId}`)[0]!.customer_started_at;
  const workflowState = (cartId: string) => stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).query(stateQuery);
  const post = (path: string, cartId: string, at: Awaited<ReturnType<typeof visitCheckout>>, fields: Record<string, string> = {}) =>
    postCheckoutForm(stack.checkoutUrl, path, cartId, at, fields);

  it('builds exactly the state the workflow’s query answers before any update', async () => {
    const cartId = await createCart();
    const session = await loadCheckoutSession(stack, cartId);
    expect(session?.customerStarted).toBe(false);
    expect(session?.state).toEqual(await workflowState(cartId));
  });

  it('renders a new cart without Temporal at all, and asks it once the customer has acted', async () => {
    const cartId = await createCart();
    const unreachable = connectTemporal({ keyring: stack.config.keyring, temporal: { ...stack.config.temporal, address: `127.0.0.1:${await freePort()}` } });
    try {
      const page = createWebApp({ ...stack, temporal: unreachable });
      const first = await page.request(`/?token=${cartId}`);
      expect(first.status).toBe(200);
      expect(await first.text()).toContain('>Send code</button>');

      await markCustomerStarted(stack.db, cartId);
      expect((await page.request(`/?token=${cartId}`)).status).toBe(503);
    } finally {
      await unreachable.close();
    }
  });

  it('marks the cart before the first update, once, and shows where the workflow is from then on', async () => {
    const cartId = await createCart();
    const page = await visitCheckout(stack.checkoutUrl, cartId);
    expect(await marker(cartId)).toBeNull();

    expect((await post('/contact', cartId, page, { contact: 'customer@example.com' })).status).toBe(303);
    const marked = await marker(cartId);
    expect(marked).toBeInstanceOf(Date);
    const again = await visitCheckout(stack.checkoutUrl, cartId, page.cookie);
    expect(again.html).toContain('>One-time code</label>');
    expect(again.html).toContain('c***@example.com');

    // A later action finds the marker set and leaves it as it was.
    expect((await post('/resend-code', cartId, again)).status).toBe(422);
    expect(await marker(cartId)).toEqual(marked);
  });

  it('says expired when the timer ran out before the ledger moved', async () => {
    const cartId = await createCart();
    await stack.db`update carts set expires_on = now() - interval '1 second' where cart_id = ${cartId}`;
    const res = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(res.status).toBe(410);
    expect(await res.text()).toContain('This checkout has expired');
  });

  it('refuses an action whose marker PostgreSQL would not take, and sends the workflow nothing', async () => {
    const cartId = await createCart();
    const page = await visitCheckout(stack.checkoutUrl, cartId);
    await stack.db.unsafe(`
      create function refuse_customer_started() returns trigger language plpgsql as $$ begin raise exception 'marker refused'; end $$;
      create trigger refuse_customer_started before update of customer_started_at on carts
        for each row when (new.cart_id = '${cartId}') execute function refuse_customer_started();`);
    try {
      const refused = await post('/contact', cartId, page, { contact: 'customer@example.com' });
      expect(refused.status).toBe(503);
      expect(await refused.text()).toContain('We could not reach our payment system');
    } finally {
      await stack.db.unsafe('drop trigger refuse_customer_started on carts; drop function refuse_customer_started()');
    }
    expect(await marker(cartId)).toBeNull();
    const history = await historyEvents(stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)));
    expect(history.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
    expect((await stack.db`select 1 from otp_outbox where cart_id = ${cartId}`).length).toBe(0);

    expect((await post('/contact', cartId, page, { contact: 'customer@example.com' })).status).toBe(303);
    expect((await workflowState(cartId)).step).toBe('code');
  });
});
