import { z } from 'zod';
import { displayText } from '../display-text.js';

/** A merchant's name at registration (operator API and CLI): the checkout page shows it. */
export const merchantNameSchema = displayText(z.string().trim().min(1).max(255));

/** What `GET /v2/merchant/me` says of the calling merchant: the response and its OpenAPI schema in one. */
export const merchantProfileSchema = z
  .strictObject({
    platformUuid: z.uuid().meta({ description: 'Your platformUuid, for create-cart', example: '8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80' }),
    name: z.string().meta({ description: 'The name you were registered with', example: 'Demo Store' }),
    environment: z.enum(['sandbox', 'production']),
    webhookUrl: z.string().meta({ description: 'Where your webhooks go', example: 'https://store.example/webhooks' }),
    domains: z.array(z.string()).meta({ description: 'Your registered domains (production holds cart URLs to them)', example: ['store.example'] }),
    requireApiKeyForCarts: z.boolean().meta({ description: 'Whether create-cart needs your API key' }),
  })
  .meta({ id: 'Merchant' });

export type MerchantProfile = z.output<typeof merchantProfileSchema>;
