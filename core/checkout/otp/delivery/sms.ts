import type { MessageSender } from '../sender.js';
import { messageText } from './message.js';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** An E.164 number of the account, or a Messaging Service SID (`MG…`). */
  from: string;
  /** https://api.twilio.com; a stand-in's address in tests. */
  apiUrl: string;
  timeoutMs?: number;
}

/**
 * One-time codes and reminders by SMS through Twilio's Messages API: one form POST per message, Basic auth with the
 * account SID and auth token. Anything but a 2xx throws with Twilio's error code (never the body,
 * which echoes the message), so the activity retries (and the page says a code could not be sent).
 */
export function createTwilioOtpSender(settings: TwilioSettings): MessageSender {
  const url = `${settings.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  const sender: Record<string, string> = settings.from.startsWith('MG') ? { MessagingServiceSid: settings.from } : { From: settings.from };
  return {
    name: 'twilio',
    async send(message) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ To: message.address, ...sender, Body: messageText(message).sms }),
        signal: AbortSignal.timeout(settings.timeoutMs ?? 10_000),
      });
      if (res.ok) return;
      const error = (await res.json().catch(() => ({}))) as { code?: number };
      throw new Error(`Twilio answered ${res.status}${error.code ? ` (error ${error.code})` : ''}`);
    },
  };
}
