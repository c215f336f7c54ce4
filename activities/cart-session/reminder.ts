import { budgetProvenance, type CartProvenance } from '../../core/checkout/cart-provenance.js';
import { claimRecoveryReminder, releaseRecoveryReminder } from '../../core/checkout/cart-ledger.js';
import type { Cart } from '../../core/checkout/cart-schema.js';
import { offersReminder } from '../../core/checkout/cart-recovery.js';
import { recoveryStanding } from '../../core/orders/recovery-standing.js';
import { readContact } from '../../core/checkout/contact-input.js';
import { sendsRealMessage } from '../../core/checkout/otp/delivery/from-config.js';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import type { MessageSender, ReminderMessage } from '../../core/checkout/otp/sender.js';
import { messageBudgets } from '../../core/checkout/otp/send-budget.js';
import { recoveryUrl } from '../../core/checkout/recovery-token.js';
import type { CartStatus } from '../../core/checkout/session.js';
import type { Config } from '../../core/config.js';
import type { Db, Sql } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { openCustomer } from '../../core/checkout/customer-seal.js';
import { countHitsAllOrNone } from '../../core/rate-limits.js';
import type { ActivityMetrics } from '../metrics.js';

/** What became of a cart's reminder: sent, or why not (in history, so an operator reads it there; never a contact). */
export type ReminderOutcome =
  | { sent: true }
  | { sent: false; reason: 'already_sent' | 'not_abandoned' | 'recovered' | 'no_contact' | 'no_recovery' | 'budget' | 'link_unavailable' | 'not_recoverable' };

interface ReminderRow {
  status: CartStatus;
  cart: Cart;
  recovered_from: string | null;
  after_recovery: boolean;
  payment_link_id: string | null;
  retry_of: string | null;
  merchant_name: string;
  platform_uuid: string;
  created_with: CartProvenance;
  customer_sealed: Buffer | null;
  expires_on: Date;
  reminder_sent_at: Date | null;
  recovered: boolean;
}

/**
 * The cart as the reminder reads it: its own row and whether its recovery link already opened a
 * session. `lock`: for update, in the claim's transaction, so the claim and the checks see one state.
 */
async function reminderRow(sql: Sql, cartId: string, lock: boolean): Promise<ReminderRow | undefined> {
  const [row] = await sql<ReminderRow[]>`
    select status, cart, recovered_from, after_recovery, payment_link_id, retry_of, merchant_name, platform_uuid, created_with, customer_sealed, expires_on, reminder_sent_at,
      exists (select 1 from carts r where r.recovered_from = carts.cart_id) as recovered
    from carts where cart_id = ${cartId} ${lock ? sql`for update` : sql``}`;
  return row;
}

/**
 * Why the cart gets no reminder, if it gets none: one went out already; the session did not end
 * abandoned; its link already opened a session (open, paid, cancelled or ended unpaid: the link now
 * leads to that session or to a page saying it is over, so a reminder would only repeat it); it is
 * itself a recovery or a retry made since one, or asked for none; no verified contact to send it to.
 */
function notDue(row: ReminderRow): Exclude<ReminderOutcome, { sent: true }>['reason'] | undefined {
  if (row.reminder_sent_at !== null) return 'already_sent';
  if (row.status !== 'abandoned') return 'not_abandoned';
  if (row.recovered) return 'recovered';
  if (!offersReminder({ cart: row.cart, afterRecovery: row.after_recovery })) return 'no_recovery';
  if (row.customer_sealed === null) return 'no_contact';
  return undefined;
}

/**
 * Abandoned-cart recovery's one reminder (workflows/cart-session/reminder.ts runs it after the delay).
 * At most one per cart, whatever retries or dead workers: `carts.reminder_sent_at` is claimed in the
 * transaction that decides to send. A message for the sandbox outbox is written in that same
 * transaction, so it and its claim commit together: exactly one. One for a real provider is sent once
 * the claim has committed, and the claim is given back only when the provider answered a failure: a
 * worker that dies mid-send leaves it claimed, and the retry sends nothing rather than maybe twice.
 * A real message counts in the same budgets as codes (core/checkout/otp/send-budget.ts); refused, the
 * reminder is dropped, not postponed. The contact is read from the ledger, where it is sealed, so it
 * never travels through workflow history; the text names the merchant the cart row records.
 */
export function createReminderActivities(deps: { config: Config; db: Db; logger: Logger; otpSender: MessageSender; metrics: ActivityMetrics }) {
  const { config, db, logger, otpSender, metrics } = deps;

  return {
    /** `locale`: the page's language when the code was sent, which the reminder speaks. */
    async sendRecoveryReminder(input: { cartId: string; locale?: string }): Promise<ReminderOutcome> {
      const { cartId } = input;
      const before = await reminderRow(db, cartId, false);
      if (!before) throw new Error('sendRecoveryReminder: this cart has no ledger row');
      const skipped = (reason: Exclude<ReminderOutcome, { sent: true }>['reason']): ReminderOutcome => {
        logger.info({ cartId, reason }, 'recovery reminder not sent');
        return { sent: false, reason };
      };
      const early = notDue(before);
      if (early) return skipped(early);
      // A cart whose recovery link would open nothing now gets no reminder of it (core/checkout/cart-recovery.ts).
      const standing = await recoveryStanding(db, {
        platformUuid: before.platform_uuid,
        environment: config.environment,
        createdWith: before.created_with,
        paymentLinkId: before.payment_link_id,
      });
      if (!standing.recovers) return skipped(standing.why);

      const customer = openCustomer(config.keyring, before.customer_sealed)!;
      const read = readContact('email' in customer ? customer.email : customer.phone, before.cart.country);
      if (!read) return skipped('no_contact');
      const { contact } = read;
      const message: ReminderMessage = {
        kind: 'reminder',
        cartId,
        channel: contact.channel,
        address: contact.address,
        addressHint: contact.hint,
        merchantName: before.merchant_name,
        recoveryUrl: recoveryUrl(config, cartId, before.expires_on),
        ...(input.locale ? { locale: input.locale } : {}),
      };
      const real = sendsRealMessage(config, contact.channel);
      const budget = real
        ? await countHitsAllOrNone(db, [
            ...messageBudgets(config.otpSends, {
              contactKey: otpDestinationKey(config.keyring, read.destination),
              channel: contact.channel,
              platformUuid: before.platform_uuid,
              createdWith: budgetProvenance({
                createdWith: before.created_with,
                paymentLinkId: before.payment_link_id,
                retryOf: before.retry_of,
                recoveredFrom: before.recovered_from,
              }),
            }).keys(),
          ])
        : { allowed: true as const, refund: async () => {} };
      if (!budget.allowed) {
        metrics.recoveryReminders.inc({ channel: contact.channel, result: 'refused' });
        return skipped('budget');
      }

      const claimed = await db.begin(async (tx) => {
        const row = await reminderRow(tx, cartId, true);
        const reason = row ? notDue(row) : 'not_abandoned';
        if (reason) return reason;
        await claimRecoveryReminder(tx, cartId);
        if (!real) await otpSender.send(message, tx);
        return undefined;
      });
      if (claimed) {
        await budget.refund();
        return skipped(claimed);
      }
      if (real) {
        try {
          await otpSender.send(message);
        } catch (error) {
          // The provider said no: nothing went out, so the claim and the budget are given back for the retry.
          await releaseRecoveryReminder(db, cartId);
          await budget.refund();
          metrics.recoveryReminders.inc({ channel: contact.channel, result: 'failed' });
          throw error;
        }
      }
      metrics.recoveryReminders.inc({ channel: contact.channel, result: 'sent' });
      logger.info({ cartId, channel: contact.channel, to: contact.hint }, 'recovery reminder sent');
      return { sent: true };
    },
  };
}
