import { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { decodePayload, ENCRYPTED_ENCODING } from '../../core/temporal/codec.js';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-delivery/messages.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { personalDataIn } from '../support/personal-data.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());

/** The query every SDK answers with the workflow's current details (what the UI shows under "Current details"). */
const METADATA_QUERY = '__temporal_workflow_metadata';

describe('the Temporal UI reads each session in words, sealed like every payload', () => {
  const stack = useTestStack();
  const plain = () => new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });

  /** Every summary and details payload of a history, as stored (no codec). */
  async function storedMetadata(workflowId: string) {
    const history = await plain().workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).flatMap((event: HistoryEvent) =>
      [event.userMetadata?.summary, event.userMetadata?.details].filter((p): p is temporal.api.common.v1.IPayload => Boolean(p)),
    );
  }
  const decoded = (payloads: temporal.api.common.v1.IPayload[]) =>
    payloads.map((p) => JSON.parse(text(decodePayload(stack.config.keyring, { metadata: p.metadata!, data: p.data! }).data)) as string);

  it('starts with a summary and details, tells the code step, the charge and the end, and says nothing personal', async () => {
    const merchant = await stack.createMerchant({ name: 'Summary Shop' });
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = await driver.createSession();
    const description = await session.handle.describe();
    expect(await description.staticSummary()).toBe('Summary Shop (sandbox): €44.98, 3 items');
    expect(await description.staticDetails()).toContain('Capture method: automatic');

    const details = async () => (await session.handle.query<{ currentDetails?: string }>(METADATA_QUERY)).currentDetails;
    expect(await details()).toMatch(/^waiting for the customer's email or phone number — open until \d\d:\d\d UTC$/);
    await driver.sendCode(session, '+33 6 12 34 56 78');
    expect(await details()).toMatch(/^waiting for the customer's code — 5 attempts left, 3 resends left/);
    const code = await driver.sentCode(session);
    await driver.verify(session, code === '000000' ? '000001' : '000000');
    expect(await details()).toMatch(/^waiting for the customer's code — 4 attempts left/);
    // The query's answer is a payload like any other: a client without the codec cannot read it.
    await expect(plain().workflow.getHandle(session.handle.workflowId).query(METADATA_QUERY)).rejects.toThrow();

    await driver.verify(session, code);
    expect(await details()).toMatch(/^code verified — waiting for the customer's card/);
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    expect(await details()).toBe(
      `paid with visa ••${SANDBOX_CARDS.approved.slice(-4)} — order_created sent to the merchant (any retry: webhooks-${session.cartId})`,
    );

    const stored = await storedMetadata(session.handle.workflowId);
    expect(stored.length).toBeGreaterThan(5);
    for (const payload of stored) expect(text(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    const words = decoded(stored);
    expect(words).toEqual(
      expect.arrayContaining([
        'Summary Shop (sandbox): €44.98, 3 items',
        expect.stringMatching(/-minute expiry of the session$/),
        'send the one-time code to the contact the customer gave',
        'ledger: processing; charge €44.98',
        "ledger: paid; order_created recorded and sent to the merchant; the session's cards deleted from the vault",
      ]),
    );
    for (const said of [...words, String(await details())]) expect(personalDataIn(said), said).toEqual([]);

    const deliveries = webhookDeliveryWorkflowId(session.cartId);
    const delivered = await waitFor(
      async () => {
        const summaries = decoded(await storedMetadata(deliveries));
        return summaries.some((s) => s.startsWith('deliver webhook event')) ? summaries : undefined;
      },
      { what: 'a summarized delivery' },
    );
    expect(delivered.find((s) => s.startsWith('deliver webhook event'))).toMatch(/^deliver webhook event evt_[A-Za-z0-9_-]+ to the merchant's endpoint$/);
  });
});
