import type { Environment } from '../../config.js';
import type { Keyring } from '../../crypto.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import type { OtpSender } from './sender.js';

/** The one owner of the `otp_outbox` table: sandbox's stand-in for an SMS or email provider. */

/**
 * The development sender: instead of sending, it writes the message to `otp_outbox`, sealed under the
 * data key, and logs only that a code went out. It refuses to exist in production, so a production
 * worker without a real sender fails at start rather than at the first customer.
 */
export function createOutboxOtpSender(deps: { environment: Environment; db: Db; keyring: Keyring; logger: Logger }): OtpSender {
  if (deps.environment === 'production') {
    throw new Error('The outbox OTP sender is for sandbox only: give the production worker a real OtpSender (SMS/email provider).');
  }
  return {
    name: 'outbox',
    async send(message) {
      await deps.db`
        insert into otp_outbox (cart_id, channel, recipient_hint, recipient_sealed, code_sealed)
        values (${message.cartId}, ${message.channel}, ${message.addressHint},
                ${deps.keyring.seal(message.address)}, ${deps.keyring.seal(message.code)})`;
      deps.logger.info({ cartId: message.cartId, channel: message.channel, to: message.addressHint }, 'one-time code written to the sandbox outbox');
    },
  };
}

/** The last code the outbox "sent" for a cart: what a developer or a test reads instead of a phone. */
export async function readLatestOutboxCode(db: Db, keyring: Keyring, cartId: string): Promise<{ code: string; address: string; channel: string } | undefined> {
  const [row] = await db<{ channel: string; recipient_sealed: Buffer; code_sealed: Buffer }[]>`
    select channel, recipient_sealed, code_sealed from otp_outbox where cart_id = ${cartId} order by id desc limit 1`;
  if (!row) return undefined;
  return { channel: row.channel, address: keyring.open(row.recipient_sealed), code: keyring.open(row.code_sealed) };
}

/** Re-seals with the newest key every message it did not seal; returns how many. Running it twice changes nothing. */
export async function resealOutbox(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ id: string; recipient_sealed: Buffer; code_sealed: Buffer }[]>`select id, recipient_sealed, code_sealed from otp_outbox`;
  const current = (sealed: Buffer) => keyring.sealedWith(sealed) === keyring.sealingKeyId;
  let resealed = 0;
  for (const row of rows) {
    if (current(row.recipient_sealed) && current(row.code_sealed)) continue;
    const updated = await db`
      update otp_outbox set recipient_sealed = ${keyring.seal(keyring.open(row.recipient_sealed))}, code_sealed = ${keyring.seal(keyring.open(row.code_sealed))}
      where id = ${row.id} and recipient_sealed = ${row.recipient_sealed} and code_sealed = ${row.code_sealed}`;
    resealed += updated.count;
  }
  return resealed;
}
