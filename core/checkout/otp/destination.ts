import { keyedHash, type Keyring } from '../../crypto.js';

/**
 * Where one-time codes go, in the only form the database sees it: an HMAC of the folded contact
 * (foldMailbox of `parseContact(...).address` for an email, the E.164 phone as it is), with a key of
 * its own derived from the newest data key. Sends are counted per destination under it, across carts,
 * without storing the phone number or email in clear. A key rotation starts the counts afresh, within one window.
 */
export function otpDestinationKey(keyring: Keyring, normalizedContact: string): string {
  return keyedHash(keyring.deriveKey('otp-destination/v1'), normalizedContact);
}

/**
 * Domains whose mailboxes ignore dots in the local part, each with the domain it is an alias of.
 * Only Gmail documents both (Gmail Help): "dots don't matter in Gmail addresses", and googlemail.com
 * addresses are the same accounts as gmail.com's. Google Workspace domains
 * do not ignore dots, nor does any other provider we know of, so nothing else is folded that way.
 */
export const DOTLESS_DOMAINS: ReadonlyMap<string, string> = new Map([
  ['gmail.com', 'gmail.com'],
  ['googlemail.com', 'gmail.com'],
]);

/**
 * The mailbox an email address delivers to, as the per-destination code limit counts it; the code is
 * still sent to the address as typed. Two folds, both towards counting more spellings as one:
 *
 * - a `+tag` is dropped at every domain (`jane+shop@x` is `jane@x`). Gmail, Outlook.com (outlook.com,
 *   hotmail.com, live.com), iCloud Mail (icloud.com), Fastmail and Proton Mail document plus addressing;
 *   most other mail servers deliver it to the same mailbox too (Postfix's and Exchange's usual
 *   delimiter). At a server that does not, `jane+x@` and `jane@` merely share one count: a stricter
 *   limit, never a looser one, so it is folded everywhere rather than per provider.
 * - dots are dropped, and googlemail.com read as gmail.com, only at Gmail (DOTLESS_DOMAINS): elsewhere
 *   `j.doe@` and `jdoe@` are different people. Outlook.com, iCloud and the others keep their dots,
 *   and no provider's sister domains (hotmail.com and outlook.com, me.com and icloud.com) are taken for
 *   one: their addresses are separate accounts.
 *
 * `address` is parseContact's (lower-cased, ASCII domain); a phone number or anything without `@`
 * is answered as it is.
 */
export function foldMailbox(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  let mailbox = local.split('+')[0] || local;
  const alias = DOTLESS_DOMAINS.get(domain);
  if (alias) mailbox = mailbox.replaceAll('.', '') || mailbox;
  return `${mailbox}@${alias ?? domain}`;
}
