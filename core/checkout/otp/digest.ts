import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * What the workflow keeps of a code it accepts: a SHA-256 of the keyed code hash the page sends
 * (core/checkout/otp/hash.ts). History then holds nothing that passes the check: the hash that
 * would is never recorded until the customer has sent it, and a digest cannot be turned back into
 * it. Pure JavaScript, so it runs inside the workflow sandbox as well as in the activity.
 */
export function otpHashDigest(codeHash: string): string {
  return bytesToHex(sha256(utf8ToBytes(codeHash)));
}
