import { currencyListSchema } from '../../core/checkout/accepted-currencies.js';
import { errorResponses, json, MERCHANT_INTERNAL, methodNotAllowedError, requestIdHeader } from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';

/** Where ./routes.ts is mounted (api/app.ts): beside create-cart, public. */
export const CURRENCIES_MOUNT = '/v2/public/api/currencies';

export const LIST_CURRENCIES = declareRoute({
  method: 'get',
  path: '/v2/public/api/currencies',
  operation: {
    operationId: 'listCurrencies',
    summary: 'The currencies this deployment accepts, and the amounts each can charge',
    description: [
      'Every currency create-cart accepts (the enum of cartObject.cart.currency), with its ISO 4217 exponent (every amount of the API is in its minor units)',
      'and, per payment processor, the unit it charges in and `multipleOf`: every total, capture and refund must be a multiple of it (KWD 10, MGA 100),',
      'else 422 AMOUNT_NOT_REPRESENTABLE; a currency not listed is 422 CURRENCY_NOT_SUPPORTED. No authentication.',
    ].join(' '),
    tags: ['Checkout sessions'],
    // Public: no key needed (an empty requirement, as create-cart's without a key).
    security: [{}],
    responses: {
      200: { description: 'The accepted currencies, by code.', headers: requestIdHeader, content: json(currencyListSchema) },
      ...errorResponses([methodNotAllowedError('GET'), MERCHANT_INTERNAL]),
    },
  },
});
