import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { addSecret, findDeliveryEndpoint, liveSealedSecrets } from '../merchants/merchant-store.js';
import { MerchantNotFoundError } from '../merchants/merchants.js';
import { newWebhookSecret } from './signing.js';

/** The secrets a merchant's webhooks are signed with, one set per endpoint: sealed at rest, rotated with an overlap. */

/**
 * Adds a new secret to an endpoint of the merchant (its first without `endpointId`); the ones live
 * until now keep signing for `overlapMs` (never longer than they already would), so the merchant can
 * deploy the new one without rejecting a single delivery.
 */
export async function rotateWebhookSecret(
  db: Db,
  keyring: Keyring,
  platformUuid: string,
  overlapMs: number,
  endpointId?: string,
): Promise<{ platformUuid: string; endpointId: string; webhookSecret: string; previousSecretsExpireAt: string }> {
  const endpoint = await findDeliveryEndpoint(db, platformUuid, endpointId);
  if (!endpoint || endpoint.deleted) throw new MerchantNotFoundError(platformUuid);
  const webhookSecret = newWebhookSecret();
  const expireAt = new Date(Date.now() + overlapMs);
  if (!(await addSecret(db, endpoint.endpointId, keyring.seal(webhookSecret), expireAt))) throw new MerchantNotFoundError(platformUuid);
  return { platformUuid, endpointId: endpoint.endpointId, webhookSecret, previousSecretsExpireAt: expireAt.toISOString() };
}

/** The secrets that sign right now, newest first. */
export async function liveWebhookSecrets(db: Db, keyring: Keyring, endpointId: string): Promise<string[]> {
  return (await liveSealedSecrets(db, endpointId)).map((sealed) => keyring.open(sealed));
}
