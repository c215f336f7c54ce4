import type { ApiKeyScope } from '../../core/merchants/api-keys.js';
import type { Role } from '../../core/people/roles.js';

/** Who may open a route: anyone (sign-in and its siblings), or the roles listed. */
export type Access = 'anyone' | readonly Role[];

export interface AccessRow {
  method: 'GET' | 'POST' | 'ALL';
  /** As mounted under /dashboard, in Hono's syntax (`:param`, a trailing `*`). */
  path: string;
  access: Access;
  /** What the route is, for docs/dashboard.md. */
  what: string;
}

const ALL_MERCHANT: readonly Role[] = ['owner', 'developer', 'support', 'analyst'];
const OPERATORS: readonly Role[] = ['operator', 'operator_admin'];

/**
 * THE role table (docs/dashboard.md is checked against it by test/unit/dashboard-access-doc.test.ts):
 * every route the dashboard mounts has one row, and the one guard (web/dashboard/guard.ts) lets a
 * request through only when the signed-in role is in its row. test/integration/dashboard-roles.test.ts
 * walks every mounted route with every role.
 */
export const ACCESS: readonly AccessRow[] = [
  { method: 'GET', path: '/', access: 'anyone', what: 'to your start page, or to sign in' },
  { method: 'GET', path: '/sign-in', access: 'anyone', what: 'the sign-in page' },
  { method: 'POST', path: '/sign-in', access: 'anyone', what: 'sign in with the API key (bootstrap, as owner)' },
  { method: 'GET', path: '/sign-in/operator', access: 'anyone', what: 'the operator sign-in page' },
  { method: 'POST', path: '/sign-in/operator', access: 'anyone', what: 'sign in with OPERATOR_TOKEN (bootstrap, as operator_admin)' },
  { method: 'GET', path: '/link', access: 'anyone', what: "the CLI's sign-in link" },
  { method: 'POST', path: '/link', access: 'anyone', what: "continue with the CLI's sign-in link (as owner)" },
  { method: 'POST', path: '/sign-out', access: 'anyone', what: 'sign out: ends the session' },
  { method: 'POST', path: '/sign-in/passkey/options', access: 'anyone', what: 'sign in with a passkey: the challenge' },
  { method: 'POST', path: '/sign-in/passkey', access: 'anyone', what: 'sign in with a passkey' },
  { method: 'POST', path: '/sign-in/email-code', access: 'anyone', what: 'email me a sign-in code (the same answer for any address)' },
  { method: 'POST', path: '/sign-in/email-code/verify', access: 'anyone', what: 'sign in with the emailed code' },
  { method: 'POST', path: '/sign-in/email-code/team', access: 'anyone', what: 'after the code, the team to sign in to (an email on several)' },
  { method: 'GET', path: '/invitations/:token', access: 'anyone', what: 'an invitation' },
  { method: 'POST', path: '/invitations/:token/options', access: 'anyone', what: "an invitation's passkey: the challenge" },
  { method: 'POST', path: '/invitations/:token/passkey', access: 'anyone', what: 'accept an invitation by enrolling a passkey' },
  { method: 'GET', path: '/account', access: [...ALL_MERCHANT, ...OPERATORS], what: 'your account and passkeys' },
  { method: 'POST', path: '/account/passkeys/options', access: [...ALL_MERCHANT, ...OPERATORS], what: 'a new passkey of yours: the challenge' },
  { method: 'POST', path: '/account/passkeys', access: [...ALL_MERCHANT, ...OPERATORS], what: 'create another passkey of yours (after an emailed code, say)' },
  {
    method: 'POST',
    path: '/account/passkeys/:id/delete',
    access: [...ALL_MERCHANT, ...OPERATORS],
    what: 'delete one of your passkeys: signs you out everywhere',
  },
  { method: 'ALL', path: '/*', access: 'anyone', what: 'anything else: not found' },

  { method: 'GET', path: '/insights', access: ['owner', 'analyst'], what: 'insights: overview' },
  { method: 'GET', path: '/insights/funnel', access: ['owner', 'analyst'], what: 'insights: funnel' },
  { method: 'GET', path: '/insights/webhooks', access: ['owner', 'analyst'], what: 'insights: webhook health' },
  { method: 'GET', path: '/orders', access: ALL_MERCHANT, what: 'orders' },
  { method: 'GET', path: '/orders/export.csv', access: ['owner', 'support', 'analyst'], what: 'orders as CSV' },
  { method: 'GET', path: '/orders/:cartId', access: ALL_MERCHANT, what: 'an order' },
  { method: 'GET', path: '/orders/:cartId/timeline', access: ALL_MERCHANT, what: "an order's timeline" },
  { method: 'POST', path: '/orders/:cartId/refunds', access: ['owner', 'support'], what: 'refund (support: up to the limit the owner sets)' },
  { method: 'POST', path: '/orders/:cartId/capture', access: ['owner', 'support'], what: 'capture' },
  { method: 'POST', path: '/orders/:cartId/void', access: ['owner', 'support'], what: 'void' },
  { method: 'POST', path: '/orders/:cartId/events/:eventId/replay', access: ['owner', 'developer'], what: "replay an order's event" },
  { method: 'GET', path: '/payment-links', access: ['owner', 'developer', 'support'], what: 'payment links' },
  { method: 'POST', path: '/payment-links', access: ['owner', 'developer', 'support'], what: 'make a payment link' },
  { method: 'POST', path: '/payment-links/:id/close', access: ['owner', 'developer', 'support'], what: 'close a payment link' },
  { method: 'GET', path: '/webhooks', access: ['owner', 'developer'], what: 'webhook settings' },
  { method: 'POST', path: '/webhooks/url', access: ['owner', 'developer'], what: "change the first endpoint's URL" },
  { method: 'POST', path: '/webhooks/endpoints', access: ['owner', 'developer'], what: 'add an endpoint' },
  { method: 'POST', path: '/webhooks/endpoints/:id/delete', access: ['owner', 'developer'], what: 'delete an endpoint' },
  { method: 'POST', path: '/webhooks/test', access: ['owner', 'developer'], what: 'send a test event' },
  { method: 'POST', path: '/webhooks/rotate-secret', access: ['owner', 'developer'], what: 'rotate a secret' },
  { method: 'POST', path: '/webhooks/domains', access: ['owner', 'developer'], what: 'set domains' },
  { method: 'POST', path: '/webhooks/domains/verify', access: ['owner', 'developer'], what: 'verify a domain' },
  { method: 'POST', path: '/webhooks/brand', access: ['owner', 'developer'], what: 'brand colour' },
  { method: 'POST', path: '/webhooks/saved-cards', access: ['owner', 'developer'], what: 'saved cards setting' },
  { method: 'POST', path: '/events/:eventId/replay', access: ['owner', 'developer'], what: 'replay an event' },
  { method: 'GET', path: '/api-keys', access: ['owner', 'developer'], what: 'API keys' },
  { method: 'POST', path: '/api-keys', access: ['owner', 'developer'], what: 'create an API key' },
  { method: 'POST', path: '/api-keys/:id/revoke', access: ['owner', 'developer'], what: 'revoke an API key' },
  { method: 'GET', path: '/audit', access: ['owner', 'analyst'], what: 'the audit log' },
  { method: 'GET', path: '/audit/export.csv', access: ['owner', 'analyst'], what: 'the audit log as CSV' },
  { method: 'GET', path: '/people', access: ['owner'], what: 'people, invitations and the support refund limit' },
  { method: 'POST', path: '/people/invitations', access: ['owner'], what: 'invite someone' },
  { method: 'POST', path: '/people/invitations/:id/revoke', access: ['owner'], what: 'revoke an invitation' },
  { method: 'POST', path: '/people/:id/role', access: ['owner'], what: "change someone's role" },
  { method: 'POST', path: '/people/:id/remove', access: ['owner'], what: 'remove someone' },
  { method: 'POST', path: '/people/refund-limit', access: ['owner'], what: "set support's refund limit" },

  { method: 'GET', path: '/operator', access: OPERATORS, what: 'merchants' },
  { method: 'GET', path: '/operator/carts', access: OPERATORS, what: 'find a cart' },
  { method: 'GET', path: '/operator/disputes', access: OPERATORS, what: 'find disputes by status and due date' },
  { method: 'GET', path: '/operator/merchants/:platformUuid', access: OPERATORS, what: 'a merchant' },
  { method: 'POST', path: '/operator/merchants/:platformUuid/:action', access: OPERATORS, what: "a merchant's actions (endpoints' disable, activation…)" },
  { method: 'GET', path: '/operator/insights', access: OPERATORS, what: "insights: every merchant's overview" },
  { method: 'GET', path: '/operator/insights/funnel', access: OPERATORS, what: "insights: every merchant's funnel" },
  { method: 'GET', path: '/operator/insights/webhooks', access: OPERATORS, what: "insights: every merchant's webhook health" },
  { method: 'GET', path: '/operator/audit', access: OPERATORS, what: "every merchant's audit log" },
  { method: 'GET', path: '/operator/audit/export.csv', access: OPERATORS, what: "every merchant's audit log as CSV" },
  { method: 'GET', path: '/operator/people', access: ['operator_admin'], what: 'operators and their invitations' },
  { method: 'POST', path: '/operator/people/invitations', access: ['operator_admin'], what: 'invite an operator' },
  { method: 'POST', path: '/operator/people/invitations/:id/revoke', access: ['operator_admin'], what: 'revoke an invitation' },
  { method: 'POST', path: '/operator/people/:id/role', access: ['operator_admin'], what: "change an operator's role" },
  { method: 'POST', path: '/operator/people/:id/remove', access: ['operator_admin'], what: 'remove an operator' },
  { method: 'GET', path: '/operator/integrity', access: OPERATORS, what: 'page integrity: tamper check alerts and runs, browser-reported violations' },
  {
    method: 'POST',
    path: '/operator/integrity/alerts/:id/acknowledge',
    access: OPERATORS,
    what: 'acknowledge a tamper check alert, with a note (closed once a run no longer finds it)',
  },
  { method: 'GET', path: '/operator/integrity/evidence.md', access: OPERATORS, what: 'page integrity evidence for assessors, Markdown' },
  { method: 'GET', path: '/operator/integrity/evidence.json', access: OPERATORS, what: 'page integrity evidence for assessors, JSON' },
  { method: 'GET', path: '/operator/tokens', access: OPERATORS, what: 'your personal tokens for the operator API and the codec' },
  { method: 'POST', path: '/operator/tokens', access: OPERATORS, what: 'create a personal token (shown once)' },
  { method: 'POST', path: '/operator/tokens/:id/revoke', access: OPERATORS, what: 'revoke one of your personal tokens' },
  { method: 'POST', path: '/codec/encode', access: OPERATORS, what: "the Temporal UI's codec: encode" },
  { method: 'POST', path: '/codec/decode', access: OPERATORS, what: "the Temporal UI's codec: decode" },
  { method: 'ALL', path: '/temporal/*', access: OPERATORS, what: 'the Temporal UI' },
];

/** Hono's syntax as a regular expression: `:name` one segment, a trailing `/*` anything below, the path itself included. */
const pattern = (path: string) =>
  new RegExp(
    `^${path
      .replace(/\/\*$/, '')
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}${path.endsWith('/*') ? '(/.*)?' : ''}$`,
  );
const compiled = ACCESS.map((row) => ({ row, re: pattern(row.path) }));

/**
 * The row a request falls under, the catch-all aside: undefined means no route of the table, which the
 * guard answers 404 without running anything (a route mounted without a row is never reachable).
 */
export function accessRow(method: string, path: string): AccessRow | undefined {
  const m = method === 'HEAD' ? 'GET' : method;
  return compiled.find(({ row, re }) => row.path !== '/*' && (row.method === m || row.method === 'ALL') && re.test(path))?.row;
}

export const allows = (access: Access, role: Role | undefined) => access === 'anyone' || (role !== undefined && access.includes(role));

/** Nobody grants a role they do not hold: a role may give another only if every route of the other is open to it too. */
export function mayGrant(granter: Role, role: Role): boolean {
  return ACCESS.every((row) => row.access === 'anyone' || !row.access.includes(role) || row.access.includes(granter));
}

/**
 * Which API keys a role may create and revoke. A `full` key opens the dashboard as owner
 * (web/dashboard/sign-in.ts) and does everything the merchant API does, refunds included: it is the
 * owner's credential, so only a role that may grant owner manages one. Narrower keys (`carts`, `read`)
 * anyone may manage who opens the keys page.
 */
export const mayManageApiKey = (role: Role, scope: ApiKeyScope): boolean => scope !== 'full' || mayGrant(role, 'owner');

/** Roles whose refunds the owner caps per currency (the People page; core/people/people.ts supportRefundLimits). */
export const REFUND_LIMITED_ROLES: readonly Role[] = ['support'];

/** The role table as docs/dashboard.md shows it (test/unit/dashboard-access-doc.test.ts holds the doc to it). */
export function roleTableMarkdown(): string {
  const roles: readonly Role[] = [...ALL_MERCHANT, ...OPERATORS];
  const lines = [`| route | what | ${roles.join(' | ')} |`, `|---|---|${roles.map(() => ':-:').join('|')}|`];
  for (const row of ACCESS) {
    const cells = roles.map((role) => (row.access === 'anyone' || row.access.includes(role) ? 'yes' : ''));
    const route = row.access === 'anyone' ? `\`${row.method} ${row.path}\` (anyone)` : `\`${row.method} ${row.path}\``;
    lines.push(`| ${route} | ${row.what} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
