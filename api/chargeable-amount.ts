import { describeRefusal, toProcessorAmount, type AmountRefusal, type ProcessorCurrencies } from '../core/checkout/processor-amounts.js';
import { ApiError } from './errors.js';

/** Where the currency and the amount are in the request, as the error's `errors[].path` names them. */
export interface AmountFields {
  currency: string;
  amount: string;
}

/** A refusal as the API's 422: `CURRENCY_NOT_SUPPORTED` naming the currency, `AMOUNT_NOT_REPRESENTABLE` naming the amount and the nearest it can charge. */
export function amountRefusalError(refusal: AmountRefusal, currency: string, amount: number, fields: AmountFields): ApiError {
  const { message, field } = describeRefusal(refusal, currency, amount);
  const path = refusal.code === 'CURRENCY_NOT_SUPPORTED' ? fields.currency : fields.amount;
  return new ApiError(refusal.code, message, [{ path, message: field }]);
}

/**
 * Refuses, before anything is created or reserved, an amount the deployment's payment processor cannot
 * charge exactly (core/checkout/processor-amounts.ts).
 */
export function assertChargeable(currencies: ProcessorCurrencies, currency: string, amount: number, fields: AmountFields): void {
  const converted = toProcessorAmount(currencies, currency, amount);
  if (!converted.ok) throw amountRefusalError(converted.refusal, currency, amount, fields);
}
