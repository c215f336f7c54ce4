/**
 * What the dashboard emails people: a one-time sign-in code (the fallback to a passkey, and the way to
 * a new passkey on a new device), and an invitation's link. English only, like the dashboard; fixed
 * templates, no tracking, nothing from the request but the address.
 */
export type DashboardMail =
  | { kind: 'sign_in_code'; to: string; code: string; lifetimeMs: number }
  | { kind: 'invitation'; to: string; url: string; team: string; role: string; expiresAt: Date };

/** Delivers the dashboard's mail: SMTP where configured, sandbox's outbox otherwise (./from-config.ts). */
export interface DashboardMailer {
  readonly name: string;
  send(mail: DashboardMail): Promise<void>;
}

export interface DashboardMailText {
  subject: string;
  text: string;
  html: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (body: string) => `<!doctype html><html lang="en"><body style="font-family:sans-serif">\n${body}\n</body></html>`;

export function dashboardMailText(mail: DashboardMail): DashboardMailText {
  if (mail.kind === 'sign_in_code') {
    const minutes = Math.max(1, Math.round(mail.lifetimeMs / 60_000));
    const lasts = `It works once, for ${minutes} minutes. Then create a passkey on this device from Your account.`;
    const ignore = 'If you did not ask to sign in, ignore this email: nobody can sign in without the code.';
    return {
      subject: `Your dashboard sign-in code: ${mail.code}`,
      text: [`Your code to sign in to the dashboard: ${mail.code}`, '', lasts, ignore].join('\n'),
      html: page(`<p>Your code to sign in to the dashboard:</p>
<p style="font-size:28px;font-weight:bold;letter-spacing:4px">${mail.code}</p>
<p>${escape(lasts)}</p>
<p>${escape(ignore)}</p>`),
    };
  }
  const lasts = `The link works once, until ${mail.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC: open it on the device you will sign in with, and create a passkey.`;
  const intro = `You are invited to the dashboard of ${mail.team}, with the role ${mail.role.replaceAll('_', ' ')}.`;
  return {
    subject: `You are invited to the dashboard of ${mail.team}`,
    text: [intro, mail.url, '', lasts].join('\n'),
    html: page(`<p>${escape(intro)}</p>
<p><a href="${escape(mail.url)}" style="font-size:18px;font-weight:bold">Accept the invitation</a></p>
<p>${escape(mail.url)}</p>
<p>${escape(lasts)}</p>`),
  };
}

/** The masked address, the only form of it a log may show. */
export function mailHint(address: string): string {
  const at = address.lastIndexOf('@');
  return at > 0 ? `${address[0]}***${address.slice(at)}` : '***';
}
