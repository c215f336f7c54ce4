import { storeCard } from '../../core/checkout/card-vault.js';
import { markCustomerStarted } from '../../core/checkout/cart-ledger.js';
import { checkCard } from '../../core/checkout/cards.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import type { WorkflowHandle } from '@temporalio/client';
import { cartWorkflowId, payUpdate, sendCodeUpdate, verifyCodeUpdate } from '../../workflows/cart-session/messages.js';
import type { cartSession } from '../../workflows/cart-session/workflow.js';
import { createCart, forEachConcurrently, settle, type BenchContext } from './context.js';
import { cpuMeter, cpuMsPer, type CpuFigures } from './cpu.js';
import { quantile, round } from './load.js';
import { processGroups } from './stack.js';
import type { VerifyingReceiver } from './receiver.js';

export interface PayFigures {
  carts: number;
  concurrency: number;
  errors: number;
  /** From the pay submission to the verified `order_created` at the merchant's endpoint. */
  p50Ms: number;
  p99Ms: number;
  /** From the pay submission to its answer, when the page sends the customer on. */
  redirectP50Ms: number;
  redirectP99Ms: number;
  /** What the timed payments cost each process (setup excluded), in all and per payment. */
  cpu: CpuFigures;
  cpuMsPerPayment: Record<string, number>;
}

export interface ReadyToPay {
  cartId: string;
  handle: WorkflowHandle<typeof cartSession>;
  card: { cardToken: string; brand: string; last4: string };
}

/**
 * A cart created through the API and taken to the card step as the page takes it: marked started,
 * a code sent and verified (as its keyed hash), the sandbox card checked and vaulted. Only Pay is left.
 */
export async function cartReadyToPay(ctx: BenchContext, apiUrl: string, platformUuid: string): Promise<ReadyToPay> {
  const { keyring } = ctx.config;
  const { cartId } = await createCart(apiUrl, platformUuid);
  const handle = ctx.temporal.client.workflow.getHandle<typeof cartSession>(cartWorkflowId(cartId));
  await markCustomerStarted(ctx.db, cartId);
  await handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'bench@example.com' }], updateId: `send-${cartId}-0` });
  await handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash: otpHash(keyring, cartId, ctx.config.sandboxOtp) }] });
  const checked = checkCard({ number: '4111111111111111', expiry: '12/30', cvv: '123' }, new Date());
  if (!checked.ok) throw new Error('the sandbox card was refused');
  const { token } = await storeCard(ctx.db, keyring, cartId, checked.card);
  return { cartId, handle, card: { cardToken: token, brand: checked.card.brand, last4: checked.card.last4 } };
}

/**
 * Pay → verified `order_created`, driven as the page drives a session (test/support/cart-session-driver.ts):
 * contact, code (as its keyed hash), the card checked and vaulted, then the `pay` update, whose answer
 * is when the page redirects. Every cart is made ready to pay first, so only the pay is timed.
 */
export async function measurePayToWebhook(ctx: BenchContext, receiver: VerifyingReceiver, carts: number, concurrency = ctx.concurrency): Promise<PayFigures> {
  const ready: ReadyToPay[] = [];
  await forEachConcurrently(Array.from({ length: carts }), Math.min(ctx.concurrency, 16), async () => {
    ready.push(await cartReadyToPay(ctx, ctx.roles.apiUrl, ctx.merchant.platformUuid));
  });

  await settle(ctx);
  const toWebhook: number[] = [];
  const toRedirect: number[] = [];
  let errors = 0;
  const meter = cpuMeter(processGroups(ctx.stack, ctx.roles));
  await forEachConcurrently(ready, concurrency, async ({ cartId, handle, card }) => {
    const created = receiver.waitFor('order_created', cartId);
    const submitted = performance.now();
    const state = await handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${cartId}` });
    toRedirect.push(performance.now() - submitted);
    if (state.status !== 'paid') {
      errors++;
      return;
    }
    toWebhook.push((await created).at - submitted);
  });
  const cpu = meter.stop();
  toWebhook.sort((a, b) => a - b);
  toRedirect.sort((a, b) => a - b);
  return {
    carts,
    concurrency,
    errors,
    p50Ms: round(quantile(toWebhook, 0.5)),
    p99Ms: round(quantile(toWebhook, 0.99)),
    redirectP50Ms: round(quantile(toRedirect, 0.5)),
    redirectP99Ms: round(quantile(toRedirect, 0.99)),
    cpu,
    cpuMsPerPayment: cpuMsPer(cpu, carts),
  };
}
