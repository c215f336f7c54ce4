import type { Environment } from '../config.js';
import { decrypt, encrypt } from '../crypto.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { OtpSender } from './otp-sender.js';

/** The one owner of the `otp_outbox` table: sandbox's stand-in for an SMS or email provider. */

/**
 * The development sender: instead of sending, it writes the message to `otp_outbox`, sealed under the
 * data key, and logs only that a code went out. It refuses to exist in production, so a production
 * worker without a real sender fails at start rather than at the first customer.
 */
export function createOutboxOtpSender(deps: { environment: Environment; db: Db; key: Buffer; logger: Logger }): OtpSender {
  if (deps.environment === 'production') {
    throw new Error('The outbox OTP sender is for sandbox only: give the production worker a real OtpSender (SMS/email provider).');
  }
  return {
    name: 'outbox',
    async send(message) {
      await deps.db`
        insert into otp_outbox (cart_id, channel, recipient_hint, recipient_sealed, code_sealed)
        values (${message.cartId}, ${message.channel}, ${message.addressHint},
                ${encrypt(deps.key, message.address)}, ${encrypt(deps.key, message.code)})`;
      deps.logger.info({ cartId: message.cartId, channel: message.channel, to: message.addressHint }, 'one-time code written to the sandbox outbox');
    },
  };
}

/** The last code the outbox "sent" for a cart: what a developer or a test reads instead of a phone. */
export async function readLatestOutboxCode(db: Db, key: Buffer, cartId: string): Promise<{ code: string; address: string; channel: string } | undefined> {
  const [row] = await db<{ channel: string; recipient_sealed: Buffer; code_sealed: Buffer }[]>`
    select channel, recipient_sealed, code_sealed from otp_outbox where cart_id = ${cartId} order by id desc limit 1`;
  if (!row) return undefined;
  return { channel: row.channel, address: decrypt(key, row.recipient_sealed), code: decrypt(key, row.code_sealed) };
}
