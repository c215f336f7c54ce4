/** Card checks the web tier runs before a card goes into the vault. Pure: no I/O, `now` passed in. */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'unknown';

export interface Card {
  pan: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  cvv: string;
}

export type CardField = 'number' | 'expiry' | 'cvv';
/** What is wrong, for the page to say in the customer's language (web/i18n); `message` is the English sentence. */
export type CardErrorCode = 'number_length' | 'number_invalid' | 'expiry_format' | 'expired' | 'cvv';
export interface CardError {
  field: CardField;
  code: CardErrorCode;
  message: string;
  values?: { digits: number; where: 'front' | 'back' };
}
export type CardCheck = { ok: true; card: Card } | { ok: false; errors: CardError[] };

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(pan: string): CardBrand {
  if (/^4/.test(pan)) return 'visa';
  // Mastercard: 51–55, and the 2-series 2221–2720.
  if (/^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/.test(pan)) return 'mastercard';
  if (/^3[47]/.test(pan)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(pan)) return 'discover';
  return 'unknown';
}

export function cvvLength(brand: CardBrand): number {
  return brand === 'amex' ? 4 : 3;
}

/** Validates what the customer typed: spaces and dashes in the number are fine, expiry is MM/YY. */
export function checkCard(input: { number: string; expiry: string; cvv: string }, now: Date): CardCheck {
  const errors: CardError[] = [];
  const pan = input.number.replace(/[\s-]/g, '');
  const brand = cardBrand(pan);
  if (!/^\d{12,19}$/.test(pan)) errors.push({ field: 'number', code: 'number_length', message: 'Enter the 12 to 19 digits of your card number.' });
  else if (!luhnValid(pan)) errors.push({ field: 'number', code: 'number_invalid', message: 'This card number is not valid. Check it and try again.' });

  const expiry = input.expiry.replace(/\s/g, '').match(/^(\d{2})\/(\d{2})$/);
  const expMonth = expiry ? Number(expiry[1]) : 0;
  const expYear = expiry ? 2000 + Number(expiry[2]) : 0;
  if (!expiry || expMonth < 1 || expMonth > 12) {
    errors.push({ field: 'expiry', code: 'expiry_format', message: 'Enter the expiry as MM/YY, e.g. 04/29.' });
  } else if (expYear < now.getUTCFullYear() || (expYear === now.getUTCFullYear() && expMonth < now.getUTCMonth() + 1)) {
    errors.push({ field: 'expiry', code: 'expired', message: 'This card has expired.' });
  }

  const expectedCvv = cvvLength(brand);
  if (!new RegExp(`^\\d{${expectedCvv}}$`).test(input.cvv.trim())) {
    errors.push({
      field: 'cvv',
      code: 'cvv',
      values: { digits: expectedCvv, where: brand === 'amex' ? 'front' : 'back' },
      message: `Enter the ${expectedCvv}-digit security code${brand === 'amex' ? ' on the front of your card' : ' on the back of your card'}.`,
    });
  }

  if (errors.length) return { ok: false, errors };
  return { ok: true, card: { pan, brand, last4: pan.slice(-4), expMonth, expYear, cvv: input.cvv.trim() } };
}
