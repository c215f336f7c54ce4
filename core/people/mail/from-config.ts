import { smtpFailure, smtpTransport } from '../../checkout/otp/delivery/email.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { dashboardMailText, type DashboardMailer } from './message.js';
import { createOutboxDashboardMailer } from './outbox.js';

/**
 * The dashboard's mail goes the way the customers' code emails go (core/checkout/otp/delivery/from-config.ts):
 * through SMTP_URL from OTP_EMAIL_FROM where set (production requires both), else into sandbox's
 * outbox. A failed send throws with the server's status only, never its text, which names the recipient.
 */
export function dashboardMailerFromConfig(deps: { config: Pick<Config, 'environment' | 'otpDelivery' | 'keyring'>; db: Db; logger: Logger }): DashboardMailer {
  const smtp = deps.config.otpDelivery.email;
  if (!smtp) return createOutboxDashboardMailer({ environment: deps.config.environment, db: deps.db, keyring: deps.config.keyring, logger: deps.logger });
  const transport = smtpTransport(smtp);
  return {
    name: 'smtp',
    async send(mail) {
      const { subject, text, html } = dashboardMailText(mail);
      await transport.sendMail({ from: smtp.from, to: mail.to, subject, text, html }).catch((err: unknown) => {
        throw smtpFailure(err);
      });
    },
  };
}
