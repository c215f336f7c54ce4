import { describe, expect, it } from 'vitest';
import { beginMirroredUpdate, finishMirroredUpdate, readSessionMirror } from '../../core/checkout/session-mirror.js';
import { cartWorkflowId, stateQuery, type CartSessionState } from '../../workflows/cart-session/messages.js';
import { boundBrowserCookie } from '../support/bound-browser.js';
import { postCheckoutForm, visitCheckout, type Visit } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The page's copy of the session state (core/checkout/session-mirror.ts, docs/decisions/page-first-load.md):
 * a paid session driven through the page's forms asks the workflow nothing, and a copy that is stale or
 * missing still shows the customer the right page.
 */

/** The page's Temporal state queries so far, every reason summed (checkout_page_state_queries_total). */
async function pageQueries(stack: TestStack): Promise<number> {
  const text = await (await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } })).text();
  return [...text.matchAll(/^checkout_page_state_queries_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

const stepOf = (html: string) => html.match(/data-step="([a-z]+)"/)?.[1];

function checkoutOf(stack: TestStack) {
  const visit = (cartId: string, cookie?: string) => visitCheckout(stack.checkoutUrl, cartId, cookie);
  const post = (path: string, cartId: string, at: Visit, fields: Record<string, string> = {}) => postCheckoutForm(stack.checkoutUrl, path, cartId, at, fields);
  /** The page as this browser sees it now: its step, with its form token kept fresh. */
  const reload = async (cartId: string, at: Visit) => {
    const res = await fetch(`${stack.checkoutUrl}/?token=${cartId}`, { headers: { cookie: at.cookie } });
    return { status: res.status, html: await res.text() };
  };
  const mirrorOf = (cartId: string) => readSessionMirror<CartSessionState>(stack.db, cartId);
  const workflowState = (cartId: string) => stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).query(stateQuery);
  return { visit, post, reload, mirrorOf, workflowState };
}

describe('the checkout page without Temporal queries', () => {
  const stack = useTestStack();
  const page = checkoutOf(stack);
  const newCart = async () => createCartId(stack.apiUrl, validCartRequest((await stack.createMerchant()).platformUuid));

  /** Contact and code posted as a browser without JavaScript does (each answered by a redirect to the page, reloaded). */
  async function toCardStep(cartId: string): Promise<Visit> {
    const at = await page.visit(cartId);
    expect((await page.post('/contact', cartId, at, { contact: 'jane@example.com' })).status).toBe(303);
    expect(stepOf((await page.reload(cartId, at)).html)).toBe('code');
    expect((await page.post('/code', cartId, at, { code: stack.config.sandboxOtp })).status).toBe(303);
    expect(stepOf((await page.reload(cartId, at)).html)).toBe('card');
    return at;
  }

  const pay = (cartId: string, at: Visit) => page.post('/card', cartId, at, { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' });

  it('takes a paid session from the first load to the merchant with no state query, every reload included', async () => {
    const cartId = await newCart();
    const before = await pageQueries(stack);
    const at = await toCardStep(cartId);
    const paid = await pay(cartId, at);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toContain(`cartId=${cartId}`);
    expect((await page.reload(cartId, at)).status).toBe(410);
    expect(await pageQueries(stack)).toBe(before);
    // The copy is the workflow's own answer: what a query says now.
    expect((await page.mirrorOf(cartId)).state).toEqual(await page.workflowState(cartId));
  });

  it('shows a second tab posting an old step the step the session is at, without sending again', async () => {
    const cartId = await newCart();
    const first = await page.visit(cartId);
    const second = { ...(await page.visit(cartId, first.cookie)) };
    await page.post('/contact', cartId, first, { contact: 'jane@example.com' });
    const before = await pageQueries(stack);
    const again = await page.post('/contact', cartId, second, { contact: 'other@example.com' });
    expect(again.status).toBe(303);
    expect(stepOf((await page.reload(cartId, second)).html)).toBe('code');
    expect(await page.workflowState(cartId)).toMatchObject({ step: 'code', sendAttempts: 1, contactHint: expect.stringContaining('example.com') });
    expect((await page.workflowState(cartId)).contactHint).toMatch(/^j/);
    expect(await pageQueries(stack)).toBe(before);
  });

  it('lets a stale copy through to no action: the workflow refuses it, nothing is kept, and the page shows the step from a query', async () => {
    const cartId = await newCart();
    const at = await page.visit(cartId);
    await page.post('/contact', cartId, at, { contact: 'jane@example.com' });
    // A copy that says verified though the session waits for its code, and a browser bound to it:
    // what no run of the protocol leaves, forced here to show the workflow stays the authority.
    const { otp: _, ...atCode } = (await page.mirrorOf(cartId)).state!;
    await stack.db`update cart_session_mirrors set state = ${stack.db.json({ ...atCode, step: 'card' })} where cart_id = ${cartId}`;
    at.cookie = `${at.cookie}; ${await boundBrowserCookie(stack, cartId)}`;
    const before = await pageQueries(stack);
    const refused = await pay(cartId, at);
    expect(refused.status).toBe(422);
    expect(stepOf(await refused.text())).toBe('code');
    expect(await pageQueries(stack)).toBe(before + 1);
    expect(await page.workflowState(cartId)).toMatchObject({ status: 'pending', step: 'code' });
    expect(await stack.db`select 1 from card_vault where cart_id = ${cartId}`).toHaveLength(0);
    // The refusal dropped the stale copy: the next load asks the workflow.
    expect((await page.mirrorOf(cartId)).state).toBeUndefined();
    expect(stepOf((await page.reload(cartId, at)).html)).toBe('code');
  });

  it('keeps no answer that is behind the state acted on: a code typed again gets its first answer, and the next load asks', async () => {
    const cartId = await newCart();
    const at = await page.visit(cartId);
    await page.post('/contact', cartId, at, { contact: 'jane@example.com' });
    const wrong = stack.config.sandboxOtp === '111111' ? '222222' : '111111';
    expect((await page.post('/code', cartId, at, { code: wrong })).status).toBe(422);
    expect((await page.post('/code', cartId, at, { code: '999999' })).status).toBe(422);
    const left = (await page.mirrorOf(cartId)).state!.otp!.attemptsLeft;
    // The same code as the first wrong one, from the same resends: the same update id, the first answer.
    expect((await page.post('/code', cartId, at, { code: wrong })).status).toBe(422);
    expect((await page.mirrorOf(cartId)).state).toBeUndefined();
    expect((await page.workflowState(cartId)).otp!.attemptsLeft).toBe(left);
    const before = await pageQueries(stack);
    expect(stepOf((await page.reload(cartId, at)).html)).toBe('code');
    expect(await pageQueries(stack)).toBe(before + 1);
  });

  it('keeps no copy of two updates at once, and the page then reads the session from the workflow', async () => {
    const cartId = await newCart();
    const first = await page.visit(cartId);
    const second = { ...first };
    const answers = await Promise.all([
      page.post('/contact', cartId, first, { contact: 'jane@example.com' }),
      page.post('/contact', cartId, second, { contact: 'jane@example.com' }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([303, 303]);
    const mirror = await page.mirrorOf(cartId);
    const before = await pageQueries(stack);
    const shown = stepOf((await page.reload(cartId, first)).html);
    expect(shown).toBe((await page.workflowState(cartId)).step);
    expect(shown).toBe('code');
    // Unless one of the two finished before the other began (then it stands alone and is kept).
    expect(await pageQueries(stack)).toBe(before + (mirror.state ? 0 : 1));
  });

  it('sends a Pay posted after the session was paid in another tab to the merchant, with one charge', async () => {
    const cartId = await newCart();
    const at = await toCardStep(cartId);
    const otherTab = { ...at };
    expect((await pay(cartId, at)).status).toBe(303);
    const before = await pageQueries(stack);
    const late = await pay(cartId, otherTab);
    expect(late.status).toBe(303);
    expect(late.headers.get('location')).toContain(`cartId=${cartId}`);
    expect(await pageQueries(stack)).toBe(before);
    const orders = await stack.db<{ event: string }[]>`select event from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
    expect(orders).toHaveLength(1);
  });

  it('keeps an update answer only when it alone moved the session since the state it acted on was read', async () => {
    const cartId = await newCart();
    const state = { cartId, status: 'pending', step: 'code', expiresOn: new Date().toISOString() } as const;
    // Alone, from the current generation: kept.
    const alone = await beginMirroredUpdate(stack.db, cartId, 0);
    await finishMirroredUpdate(stack.db, alone, state);
    expect(await page.mirrorOf(cartId)).toEqual({ generation: 1, state });
    // Two at once: neither is kept, whichever finishes first.
    const a = await beginMirroredUpdate(stack.db, cartId, 1);
    const b = await beginMirroredUpdate(stack.db, cartId, 1);
    expect(await page.mirrorOf(cartId)).toEqual({});
    await finishMirroredUpdate(stack.db, b, state);
    await finishMirroredUpdate(stack.db, a, state);
    expect(await page.mirrorOf(cartId)).toEqual({ generation: 3 });
    // Acting on a state read before another update: not kept.
    const late = await beginMirroredUpdate(stack.db, cartId, 1);
    await finishMirroredUpdate(stack.db, late, state);
    expect((await page.mirrorOf(cartId)).state).toBeUndefined();
    // An update that never finished (its writer died, or it threw): no copy, and no read is current, for good.
    await beginMirroredUpdate(stack.db, cartId, 4);
    const after = await beginMirroredUpdate(stack.db, cartId, undefined);
    await finishMirroredUpdate(stack.db, after, state);
    expect(await page.mirrorOf(cartId)).toEqual({});
  });
});

describe('a session that expires under a customer whose page keeps its state', () => {
  const stack = useTestStack({ SESSION_LIFETIME_SECONDS: '6' });
  const page = checkoutOf(stack);

  it('shows the expired page, to a reload and to a post, with no state query', async () => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest((await stack.createMerchant()).platformUuid));
    const at = await page.visit(cartId);
    await page.post('/contact', cartId, at, { contact: 'jane@example.com' });
    expect((await page.mirrorOf(cartId)).state).toMatchObject({ step: 'code' });
    const before = await pageQueries(stack);
    await waitFor(async () => ((await page.reload(cartId, at)).status === 410 ? true : undefined), { what: 'the expired page', timeoutMs: 15_000 });
    expect((await page.reload(cartId, at)).html).toContain('This checkout has expired');
    const late = await page.post('/code', cartId, at, { code: stack.config.sandboxOtp });
    expect(late.status).toBe(303);
    expect((await page.reload(cartId, at)).status).toBe(410);
    expect(await pageQueries(stack)).toBe(before);
  });
});
