import type { Environment } from '../../config.js';
import type { Keyring } from '../../crypto.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { mailHint, type DashboardMail, type DashboardMailer } from './message.js';

/**
 * The one owner of the `dashboard_mail_outbox` table: sandbox's stand-in for the dashboard's email, as
 * `otp_outbox` is the checkout's (core/checkout/otp/outbox.ts). The recipient and the message's secret
 * (the code, the invitation link) are sealed under the data key; the log says only that a message went.
 * It refuses to exist in production, where SMTP_URL is required.
 */
export function createOutboxDashboardMailer(deps: { environment: Environment; db: Db; keyring: Keyring; logger: Logger }): DashboardMailer {
  if (deps.environment === 'production') throw new Error('The dashboard mail outbox is for sandbox only: production sends through SMTP_URL.');
  const { db, keyring, logger } = deps;
  return {
    name: 'outbox',
    async send(mail) {
      const secret = mail.kind === 'sign_in_code' ? mail.code : mail.url;
      await db`
        insert into dashboard_mail_outbox (kind, recipient_hint, recipient_sealed, secret_sealed)
        values (${mail.kind}, ${mailHint(mail.to)}, ${keyring.seal(mail.to)}, ${keyring.seal(secret)})`;
      logger.info({ kind: mail.kind, to: mailHint(mail.to) }, 'dashboard mail written to the sandbox outbox');
    },
  };
}

export interface OutboxDashboardMail {
  kind: DashboardMail['kind'];
  /** The code of a sign-in code, the link of an invitation. */
  secret: string;
  at: Date;
}

/** How far back the outbox is searched for an address: its newest messages are what anyone reads. */
const SEARCHED = 1000;

/** The dashboard mail the outbox "sent" to an address, newest first: what a developer or a test reads instead of a mailbox. */
export async function readDashboardMail(db: Db, keyring: Keyring, address: string): Promise<OutboxDashboardMail[]> {
  const rows = await db<{ kind: DashboardMail['kind']; recipient_sealed: Buffer; secret_sealed: Buffer; created_at: Date }[]>`
    select kind, recipient_sealed, secret_sealed, created_at from dashboard_mail_outbox order by id desc limit ${SEARCHED}`;
  const wanted = address.trim().toLowerCase();
  return rows
    .filter((row) => keyring.open(row.recipient_sealed) === wanted)
    .map((row) => ({ kind: row.kind, secret: keyring.open(row.secret_sealed), at: row.created_at }));
}

/** Re-seals with the newest key every message it did not seal; returns how many. Running it twice changes nothing. */
export async function resealDashboardMail(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ id: string; recipient_sealed: Buffer; secret_sealed: Buffer }[]>`
    select id, recipient_sealed, secret_sealed from dashboard_mail_outbox`;
  const current = (sealed: Buffer) => keyring.sealedWith(sealed) === keyring.sealingKeyId;
  let resealed = 0;
  for (const row of rows) {
    if (current(row.recipient_sealed) && current(row.secret_sealed)) continue;
    const updated = await db`
      update dashboard_mail_outbox set recipient_sealed = ${keyring.seal(keyring.open(row.recipient_sealed))}, secret_sealed = ${keyring.seal(keyring.open(row.secret_sealed))}
       where id = ${row.id} and recipient_sealed = ${row.recipient_sealed} and secret_sealed = ${row.secret_sealed}`;
    resealed += updated.count;
  }
  return resealed;
}
