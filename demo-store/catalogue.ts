/** What the Demo Store sells. Prices are integers in the currency's minor units, as the checkout API wants them. */
export const CURRENCY = 'EUR';

export interface Product {
  id: string;
  title: string;
  description: string;
  price: number;
  /** Made after the order: the card is only authorized at checkout and captured when it ships (captureMethod manual). */
  shipLater?: true;
}

export const PRODUCTS: readonly Product[] = [
  { id: 'espresso-cup', title: 'Espresso cup', description: 'Stoneware, 80 ml', price: 1200 },
  { id: 'tea-towel', title: 'Tea towel', description: 'Linen, 50 × 70 cm', price: 850 },
  { id: 'notebook', title: 'Notebook', description: 'A5, dot grid, 120 pages', price: 1500 },
  { id: 'serving-bowl', title: 'Serving bowl (ships later)', description: 'Thrown to order; charged when it ships', price: 3400, shipLater: true },
];

export const MAX_QUANTITY = 10;

export function findProduct(id: string): Product | undefined {
  return PRODUCTS.find((p) => p.id === id);
}

export function formatMoney(minorUnits: number, currency: string = CURRENCY): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minorUnits / 10 ** digits);
}

/**
 * "12.5" or "12.50" → 1250, read as text so no floating-point rounding can turn 0.29 into 28 cents;
 * undefined when it is not an amount.
 */
export function parseAmount(text: string, currency: string = CURRENCY): number | undefined {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const match = new RegExp(`^(\\d{1,9})(?:[.,](\\d{1,${Math.max(digits, 1)}}))?$`).exec(text.trim());
  if (!match || (digits === 0 && match[2] !== undefined)) return undefined;
  return Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || 0);
}
