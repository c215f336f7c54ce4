import { unchargeable, type ProcessorCurrencies, type Unchargeable } from '../core/checkout/processor-amounts.js';
import { ApiError } from './errors.js';

/** Where the currency and the amount are in the request, as the error's `errors[].path` names them. */
export interface AmountFields {
  currency: string;
  amount: string;
}

/**
 * An amount the processor cannot charge exactly, as the API's 422 (create-cart, capture, refund):
 * `CURRENCY_NOT_SUPPORTED` naming the currency, `AMOUNT_NOT_REPRESENTABLE` naming the amount and the nearest it can charge.
 */
export function unchargeableError(refused: Unchargeable, fields: AmountFields): ApiError {
  const [code, path] =
    refused.code === 'currency_not_supported' ? (['CURRENCY_NOT_SUPPORTED', fields.currency] as const) : (['AMOUNT_NOT_REPRESENTABLE', fields.amount] as const);
  return new ApiError(code, refused.message, [{ path, message: refused.field }]);
}

/**
 * Refuses, before anything is created or reserved, an amount the deployment's payment processor cannot
 * charge exactly (core/checkout/processor-amounts.ts).
 */
export function assertChargeable(currencies: ProcessorCurrencies, currency: string, amount: number, fields: AmountFields): void {
  const refused = unchargeable(currencies, currency, amount);
  if (refused) throw unchargeableError(refused, fields);
}
