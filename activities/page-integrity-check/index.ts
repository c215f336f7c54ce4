import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { recoveryUrl } from '../../core/checkout/recovery-token.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { postIntegrityAlerts } from '../../core/integrity/alert-webhook.js';
import { generatedAssetHashes } from '../../core/integrity/generated-assets.js';
import { loadInventory } from '../../core/integrity/inventory.js';
import { walkPaymentPages } from '../../core/integrity/page-walk.js';
import { countUnclosedAlerts, runTamperCheck, type PageIntegrityCheckResult } from '../../core/integrity/tamper-check.js';
import type { Logger } from '../../core/logger.js';
import { webhookTargets } from '../../core/outbound/url-safety.js';
import type { postWebhook } from '../../core/webhooks/http-post.js';
import type { ActivityMetrics } from '../metrics.js';

/** What the payment page tamper check (workflows/page-integrity-check/) runs on each tick of its schedule. */
export function createPageIntegrityCheckActivities(deps: {
  config: Config;
  db: Db;
  logger: Logger;
  metrics: ActivityMetrics;
  postWebhook: typeof postWebhook;
  fetch?: typeof fetch;
}) {
  const { config, db, logger, metrics } = deps;
  const settings = config.integrityCheck;
  const fetchFn = deps.fetch ?? fetch;

  /** A sandbox cart of the canary merchant, created through the public API as a merchant's server would. */
  async function createCanaryCart(platformUuid: string): Promise<string> {
    const res = await fetchFn(`${settings.apiUrl}/v2/public/api/cart/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(canaryCart(platformUuid)),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`the canary cart was refused: HTTP ${res.status}`);
    return (JSON.parse(text) as { data: { cartId: string } }).data.cartId;
  }

  return {
    /** One run: walk, compare, record, and alert on every new difference (log, metric, webhook; the operator page reads the table). */
    async checkPageIntegrity(): Promise<PageIntegrityCheckResult> {
      const result = await runTamperCheck({
        db,
        walk: async () => {
          const platformUuid = settings.canaryMerchantId;
          if (!platformUuid) throw new Error('INTEGRITY_CANARY_MERCHANT_ID is not set: no canary cart, no walk');
          return walkPaymentPages({
            checkoutUrl: settings.pageUrl,
            createCart: () => createCanaryCart(platformUuid),
            sandboxOtp: config.sandboxOtp,
            recoveryLinkOf: (cartId) => recoveryUrl(config, cartId, new Date()),
            fetch: fetchFn,
          });
        },
        approved: async () => ({
          inventory: loadInventory(),
          generatedHashes: await generatedAssetHashes(db),
          production: config.environment === 'production',
        }),
      });
      metrics.integrityRuns.inc({ result: result.differences.length === 0 ? 'clean' : 'differences' });
      metrics.integrityOpenAlerts.set(await countUnclosedAlerts(db));
      for (const alert of result.raised) {
        metrics.integrityAlerts.inc({ variant: alert.variant });
        logger.error(
          { event: 'page_integrity.alert', alertId: alert.id, runId: result.runId, variant: alert.variant, difference: alert.difference },
          'payment page integrity alert: a page differs from its approved inventory or header baseline',
        );
      }
      if (result.raised.length > 0 && settings.alertWebhook) {
        const outcome = await postIntegrityAlerts({
          url: settings.alertWebhook.url,
          secret: settings.alertWebhook.secret,
          runId: result.runId,
          alerts: result.raised,
          timeoutMs: config.webhooks.timeoutMs,
          targets: webhookTargets(config.environment, config.webhooks),
          post: deps.postWebhook,
        });
        if (outcome.status === undefined || outcome.status >= 300)
          logger.error(
            { event: 'page_integrity.alert_webhook_failed', status: outcome.status, error: outcome.errorClass },
            'the integrity alert webhook was not accepted',
          );
      }
      logger.info(
        { runId: result.runId, pages: result.pages, differences: result.differences.length, raised: result.raised.length, durationMs: result.durationMs },
        'payment page tamper check run',
      );
      return { runId: result.runId, pages: result.pages, differences: result.differences.length, raised: result.raised.length };
    },
  };
}

/** The canary's cart: one item, an English-speaking euro country (the pages in English), a store of its own. */
function canaryCart(platformUuid: string): CreateCartRequest {
  return {
    cartObject: {
      store: { platformUuid, name: 'Integrity canary', url: 'https://canary.example', logo: 'https://canary.example/logo.png' },
      cart: {
        currency: 'EUR',
        country: 'IE',
        items: [
          {
            title: 'Integrity canary',
            description: 'Tamper check',
            price: 100,
            quantity: 1,
            url: 'https://canary.example/item',
            image: 'https://canary.example/item.png',
            zeroPay: false,
          },
        ],
        extra: { orderRef: 'integrity-canary' },
        merchantUrls: { successUrl: 'https://canary.example/success', failureUrl: 'https://canary.example/failure' },
      },
    },
  };
}

export type PageIntegrityCheckActivities = ReturnType<typeof createPageIntegrityCheckActivities>;
