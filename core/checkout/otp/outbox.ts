import type { Environment } from '../../config.js';
import type { Keyring } from '../../crypto.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import type { MessageSender } from './sender.js';

/** The one owner of the `otp_outbox` table: sandbox's stand-in for an SMS or email provider. */

/**
 * The development sender: instead of sending, it writes the message to `otp_outbox`, sealed under the
 * data key (the code of a code message, the recovery link of a reminder), and logs only that a message
 * went out. Given the transaction that records the message (a reminder's claim), it writes in it. It
 * refuses to exist in production, so a production worker without a real sender fails at start rather
 * than at the first customer.
 */
export function createOutboxOtpSender(deps: { environment: Environment; db: Db; keyring: Keyring; logger: Logger }): MessageSender {
  if (deps.environment === 'production') {
    throw new Error('The outbox OTP sender is for sandbox only: give the production worker a real MessageSender (SMS/email provider).');
  }
  const { keyring } = deps;
  return {
    name: 'outbox',
    async send(message, within) {
      const sql = within ?? deps.db;
      const [code, link] = message.kind === 'code' ? [keyring.seal(message.code), null] : [null, keyring.seal(message.recoveryUrl)];
      await sql`
        insert into otp_outbox (cart_id, kind, channel, recipient_hint, recipient_sealed, code_sealed, link_sealed)
        values (${message.cartId}, ${message.kind}, ${message.channel}, ${message.addressHint}, ${keyring.seal(message.address)}, ${code}, ${link})`;
      const what = message.kind === 'code' ? 'one-time code' : 'recovery reminder';
      deps.logger.info({ cartId: message.cartId, channel: message.channel, to: message.addressHint }, `${what} written to the sandbox outbox`);
    },
  };
}

/** The last code the outbox "sent" for a cart: what a developer or a test reads instead of a phone. */
export async function readLatestOutboxCode(db: Db, keyring: Keyring, cartId: string): Promise<{ code: string; address: string; channel: string } | undefined> {
  const [row] = await db<{ channel: string; recipient_sealed: Buffer; code_sealed: Buffer }[]>`
    select channel, recipient_sealed, code_sealed from otp_outbox where cart_id = ${cartId} and kind = 'code' order by id desc limit 1`;
  if (!row) return undefined;
  return { channel: row.channel, address: keyring.open(row.recipient_sealed), code: keyring.open(row.code_sealed) };
}

/** Every recovery reminder the outbox "sent" for a cart (one at most, unless something is wrong), oldest first. */
export async function readOutboxReminders(db: Db, keyring: Keyring, cartId: string): Promise<{ recoveryUrl: string; address: string; channel: string }[]> {
  const rows = await db<{ channel: string; recipient_sealed: Buffer; link_sealed: Buffer }[]>`
    select channel, recipient_sealed, link_sealed from otp_outbox where cart_id = ${cartId} and kind = 'reminder' order by id`;
  return rows.map((row) => ({ channel: row.channel, address: keyring.open(row.recipient_sealed), recoveryUrl: keyring.open(row.link_sealed) }));
}

/** Re-seals with the newest key every message it did not seal; returns how many. Running it twice changes nothing. */
export async function resealOutbox(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ id: string; recipient_sealed: Buffer; code_sealed: Buffer | null; link_sealed: Buffer | null }[]>`
    select id, recipient_sealed, code_sealed, link_sealed from otp_outbox`;
  const current = (sealed: Buffer | null) => sealed === null || keyring.sealedWith(sealed) === keyring.sealingKeyId;
  const fresh = (sealed: Buffer | null) => (sealed === null ? null : keyring.seal(keyring.open(sealed)));
  let resealed = 0;
  for (const row of rows) {
    if (current(row.recipient_sealed) && current(row.code_sealed) && current(row.link_sealed)) continue;
    const updated = await db`
      update otp_outbox set recipient_sealed = ${fresh(row.recipient_sealed)}, code_sealed = ${fresh(row.code_sealed)}, link_sealed = ${fresh(row.link_sealed)}
      where id = ${row.id} and recipient_sealed = ${row.recipient_sealed}
        and code_sealed is not distinct from ${row.code_sealed} and link_sealed is not distinct from ${row.link_sealed}`;
    resealed += updated.count;
  }
  return resealed;
}
