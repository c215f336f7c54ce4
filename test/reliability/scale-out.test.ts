import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { untilAnswered } from '../support/checkout-flow.js';
import { deliveryFigures } from '../support/delivery-check.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { findLeaksInDatabase, findLeaksInFiles } from '../support/leak-scan.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, type ProcessStack } from '../support/process-stack.js';
import { reliabilitySettings, reportFigures } from '../support/reliability.js';
import type { RoleProcess } from '../support/role-process.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** Sessions in flight at once: enough to keep every process busy on two cores. */
const CONCURRENCY = 4;

/**
 * The shape a deployment runs: two API processes, two checkout-page processes and two workers
 * (their production entries, api/main.ts, web/main.ts, worker/main.ts) on one Temporal server and one
 * PostgreSQL. Each request goes to the next process of its role in turn — one customer's page posts
 * alternate between the two page processes — and one worker is SIGKILLed halfway through.
 */
describe('scaled out: 2 APIs, 2 checkout pages, 2 workers, one worker killed mid-load', () => {
  const { seed, trials } = reliabilitySettings('scale-out');
  const sessions = Math.max(6, trials * 2);
  const database = useOwnDatabase('reliability_scale');
  let stack: ProcessStack;
  let receiver: WebhookReceiver;
  let apis: RoleProcess[];
  let webs: RoleProcess[];
  let workers: RoleProcess[];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = createProcessStack({ databaseUrl: database.url, temporalAddress: inject('temporalAddress') });
    const started = await Promise.all([
      stack.start('api', 'api-1'),
      stack.start('api', 'api-2'),
      stack.start('web', 'web-1'),
      stack.start('web', 'web-2'),
      stack.start('worker', 'worker-1'),
      stack.start('worker', 'worker-2'),
    ]);
    [apis, webs, workers] = [started.slice(0, 2), started.slice(2, 4), started.slice(4)];
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('completes every session and delivers every webhook', { timeout: 900_000 }, async () => {
    const { platformUuid } = await stack.createMerchant({ webhookUrl: receiver.url });
    let turn = 0;
    const next = <T>(of: T[]) => of[turn++ % of.length]!;
    const statuses = new Map<string, number>();
    const count = (role: string, res: Response) => {
      const key = `${role} ${res.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      return res;
    };

    const checkout = async (): Promise<string> => {
      const created = count('api', await postCart(next(apis).url, validCartRequest(platformUuid)));
      const { cartId } = ((await created.json()) as { data: { cartId: string } }).data;
      const visit = await visitCheckout(next(webs).url, cartId);
      const post = async (path: string, fields: Record<string, string>) => count('web', await postCheckoutForm(next(webs).url, path, cartId, visit, fields));
      await post('/contact', { contact: 'customer@example.com' });
      await post('/code', { code: stack.config.sandboxOtp });
      await post('/card', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' });
      return cartId;
    };

    const cartIds: string[] = [];
    let started = 0;
    let killedAt: number | undefined;
    const lane = async () => {
      while (started < sessions) {
        started++;
        if (killedAt === undefined && started > sessions / 2) {
          killedAt = started;
          await workers[0]!.stop('SIGKILL');
        }
        cartIds.push(await checkout());
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));

    const outcomes = await Promise.all(cartIds.map((id) => untilAnswered(() => stack.temporal.client.workflow.getHandle(cartWorkflowId(id)).result())));
    const notPaid = outcomes.map((o, i) => ({ cartId: cartIds[i]!, status: o.status })).filter((o) => o.status !== 'paid');
    const ledger = await stack.db<{ cart_id: string; status: string }[]>`select cart_id, status from carts where cart_id = any(${cartIds})`;
    const ledgerWrong = ledger.filter((r) => r.status !== 'paid').length + (cartIds.length - ledger.length);
    const deliveries = await waitFor(
      async () => {
        const figures = await deliveryFigures(stack.db, receiver, cartIds);
        return figures.eventsLost === 0 ? figures : undefined;
      },
      { timeoutMs: 120_000, what: 'every webhook acknowledged' },
    ).catch(() => deliveryFigures(stack.db, receiver, cartIds));
    const serverErrors = [...statuses].filter(([key]) => Number(key.split(' ')[1]) >= 500).reduce((n, [, c]) => n + c, 0);
    const leaks = [...findLeaksInFiles(stack.logFiles(), stack.secrets()), ...(await findLeaksInDatabase(stack.db, 'scale-out-db', stack.secrets()))];

    reportFigures({
      suite: 'scale-out',
      title: '2 API, 2 checkout-page and 2 worker processes, round-robin, one worker SIGKILLed mid-load',
      seed,
      trials: sessions,
      faults: { 'worker SIGKILL mid-load': 1 },
      sessionsChecked: cartIds.length,
      sessionsLost: notPaid.length + ledgerWrong,
      ...deliveries,
      serverErrors,
      leaks,
      notes: [
        `requests by role and status: ${JSON.stringify(Object.fromEntries(statuses))}`,
        `worker-1 killed as session ${killedAt} of ${sessions} started`,
        ...notPaid.map((o) => `${o.cartId}: ${o.status}`),
      ],
    });
    expect(notPaid).toEqual([]);
    expect(ledgerWrong).toBe(0);
    expect(deliveries.eventsLost).toBe(0);
    expect(deliveries.eventsOutOfOrder).toBe(0);
    expect(serverErrors).toBe(0);
    expect(leaks).toEqual([]);
  });
});
