import { readFileSync } from 'node:fs';
import type { Db } from '../../core/db/client.js';

/** Luhn checksum: what makes a digit run a plausible card number rather than an id or a time. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

// 15 to 19 digits starting like a card network's (longer than a millisecond timestamp, 13 digits),
// whole or in groups of four, as a token of its own: a digit run inside a hex id or a UUID is not one.
const PAN = /(?<![A-Za-z0-9_-])(?:[3-6]\d{14,18}|[3-6]\d{3}([ -])\d{4}\1\d{4}\1\d{3,7})(?![A-Za-z0-9_-])/g;
// A workflow activation logged at trace level carries Temporal's u64 randomness seed: up to 20 digits,
// one in ten of them Luhn-valid. It is the only digit run of that length the SDK logs, so it is set
// aside by its key rather than by weakening the card number pattern.
const TEMPORAL_SEED = /"randomnessSeed":"\d+"/g;
const CVV = /"(?:cvv|cvc|cvv2)"\s*:\s*"?\d{3,4}/gi;
const OTP = /"(?:otp|code|oneTimeCode)"\s*:\s*"?\d{6}\b/gi;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]{20,}/g;
const API_KEY = /sk_(?:sandbox|production)_[A-Za-z0-9_-]{43}/g;

/**
 * Card numbers, CVVs, one-time codes and secrets in clear in `text`: each finding says where and
 * what kind (never the value itself, so the report does not become the leak). `secrets` are exact
 * values this run knows (data keys, operator token, merchants' secrets and keys).
 */
export function findLeaks(where: string, text: string, secrets: readonly string[] = []): string[] {
  const findings: string[] = [];
  for (const match of text.replace(TEMPORAL_SEED, '').matchAll(PAN)) if (luhnValid(match[0].replace(/[ -]/g, ''))) findings.push(`${where}: card number`);
  for (const [pattern, kind] of [
    [CVV, 'CVV'],
    [OTP, 'one-time code'],
    [WEBHOOK_SECRET, 'webhook secret'],
    [API_KEY, 'merchant API key'],
  ] as const) {
    if (pattern.test(text)) findings.push(`${where}: ${kind}`);
    pattern.lastIndex = 0;
  }
  for (const secret of secrets) if (secret && text.includes(secret)) findings.push(`${where}: a configured secret`);
  return findings;
}

export function findLeaksInFiles(files: readonly string[], secrets: readonly string[] = []): string[] {
  return files.flatMap((file) => findLeaks(file.split('/').slice(-1)[0]!, readFileSync(file, 'utf8'), secrets));
}

/**
 * Every table of the database, each row as text, except sealed (bytea) columns: ciphertext is the
 * protection, and its hex could look like anything.
 */
export async function findLeaksInDatabase(db: Db, label: string, secrets: readonly string[] = []): Promise<string[]> {
  const columns = await db<{ table_name: string; column_name: string }[]>`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and data_type <> 'bytea' order by table_name, ordinal_position`;
  const byTable = new Map<string, string[]>();
  for (const c of columns) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  const findings: string[] = [];
  for (const [table, names] of byTable) {
    const rows = await db.unsafe<{ row: string }[]>(`select concat_ws(' | ', ${names.map((n) => `"${n}"::text`).join(', ')}) as row from "${table}"`);
    findings.push(...findLeaks(`${label}.${table}`, rows.map((r) => r.row).join('\n'), secrets));
  }
  return findings;
}
