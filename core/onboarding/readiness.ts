import type { Config } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { postWebhook } from '../webhooks/http-post.js';
import { sendTestWebhook } from '../webhooks/test-event.js';
import { liveWebhookSecrets } from '../webhooks/secrets.js';
import { findDeliveryEndpoint, selectMerchants } from '../merchants/merchant-store.js';

export type ReadinessCheckName = 'active' | 'environment' | 'domains' | 'webhookSecret' | 'apiKey' | 'endpoint';

export interface ReadinessCheck {
  check: ReadinessCheckName;
  ok: boolean;
  /** What was found, or what to do about it (with the command). */
  detail: string;
}

export interface MerchantReadiness {
  platformUuid: string;
  name: string;
  environment: Config['environment'];
  ready: boolean;
  /** The names of the checks that failed, in order. */
  missing: ReadinessCheckName[];
  checks: ReadinessCheck[];
  /** What does not stop payments but the merchant should change; never counted in `missing`. */
  warnings: ReadinessWarning[];
}

export interface ReadinessWarning {
  warning: 'publicCarts';
  detail: string;
}

export class UnknownMerchantError extends Error {
  override name = 'UnknownMerchantError';
}

/**
 * What a merchant still lacks to take payments in this deployment (docs/going-live.md): registered
 * here and active, its domains set (production refuses carts without them), a webhook secret this
 * deployment's keys open, an API key issued, and an endpoint that answers 2xx to a signed test event.
 */
export async function checkMerchantReadiness(
  deps: { db: Db; keyring: Keyring; config: Pick<Config, 'environment' | 'webhooks'>; post?: typeof postWebhook },
  platformUuid: string,
): Promise<MerchantReadiness> {
  const { db, keyring, config } = deps;
  const [merchant] = await selectMerchants(db, { platformUuid });
  const endpoint = merchant && (await findDeliveryEndpoint(db, platformUuid));
  if (!merchant || !endpoint) throw new UnknownMerchantError(`no merchant ${platformUuid}`);
  const production = merchant.environment === 'production';
  const checks: ReadinessCheck[] = [];
  const add = (check: ReadinessCheckName, ok: boolean, detail: string) => checks.push({ check, ok, detail });

  add('active', merchant.status === 'active', merchant.status === 'active' ? 'active' : 'deactivated: it takes no carts; register it again');
  add(
    'environment',
    merchant.environment === config.environment,
    merchant.environment === config.environment
      ? `a ${merchant.environment} merchant on the ${config.environment} deployment`
      : `a ${merchant.environment} merchant, but this is the ${config.environment} deployment: register the merchant on the ${merchant.environment} deployment (each has its own merchants and secrets)`,
  );
  // Production takes carts only on verified domains (core/merchants/domain-verification.ts).
  const unverified = merchant.domain_verification.filter((d) => d.verifiedAt === null).map((d) => d.domain);
  if (merchant.domains.length > 0 && production && unverified.length > 0)
    add(
      'domains',
      false,
      `${merchant.domains.join(', ')}; not verified: ${unverified.join(', ')} (publish each domain's token, then merchant verify-domains --platform-uuid P)`,
    );
  else if (merchant.domains.length > 0) add('domains', true, merchant.domains.join(', '));
  else if (production)
    add('domains', false, 'none: production refuses every cart until some are set (merchant set-domains --platform-uuid P --domain shop.example)');
  else add('domains', true, 'none (sandbox does not check them; production will)');

  let secrets: string[] = [];
  try {
    secrets = await liveWebhookSecrets(db, keyring, endpoint.endpointId);
    add(
      'webhookSecret',
      secrets.length > 0,
      secrets.length > 0 ? `${secrets.length} live signing secret(s)` : 'none live: merchant rotate-secret --platform-uuid P',
    );
  } catch {
    add(
      'webhookSecret',
      false,
      "its secret does not open with this deployment's data keys: merchant rotate-secret --platform-uuid P, then give the merchant the new one",
    );
  }
  add(
    'apiKey',
    merchant.api_key_prefix !== null,
    merchant.api_key_prefix ? `issued (${merchant.api_key_prefix}…)` : 'none: merchant rotate-api-key --platform-uuid P',
  );

  if (endpoint.status === 'disabled') {
    add(
      'endpoint',
      false,
      `disabled (${merchant.disabled_reason ?? 'no reason recorded'}): fix it, then merchant set-webhook-url --platform-uuid P --webhook-url U`,
    );
  } else if (secrets.length === 0) {
    add('endpoint', false, `${endpoint.url}: not tried, there is no secret to sign a test event with`);
  } else {
    const { eventId, outcome } = await sendTestWebhook(db, { keyring, webhooks: config.webhooks }, platformUuid, {
      ...(deps.post ? { post: deps.post } : {}),
      message: 'A signed test event from the operator (merchant check): answer 2xx; it is not an order.',
    });
    const answered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    // The operator's own check (the CLI): what Node said of a failure is theirs to see, unlike a merchant.
    add(
      'endpoint',
      answered,
      answered
        ? `${endpoint.url} answered ${outcome.status} to a signed test event (${eventId}) in ${outcome.latencyMs} ms`
        : `${endpoint.url} did not answer 2xx to a signed test event: ${outcome.status !== undefined ? `HTTP ${outcome.status}` : `${outcome.errorClass}${outcome.errorDetail ? ` (${outcome.errorDetail})` : ''}`}`,
    );
  }

  const warnings: ReadinessWarning[] = [];
  // Create-cart is public: without the key rule, a stranger who knows the platformUuid can put carts (and
  // their signed webhooks, marked createdWith "public") into this merchant's books.
  if (production && !merchant.require_api_key_for_carts)
    warnings.push({
      warning: 'publicCarts',
      detail:
        'takes public carts: anyone who knows its platformUuid can create carts (webhooks say createdWith "public"); have its server send its API key on create-cart, then merchant set-require-api-key --platform-uuid P --on',
    });

  const missing = checks.filter((c) => !c.ok).map((c) => c.check);
  return { platformUuid, name: merchant.name, environment: merchant.environment, ready: missing.length === 0, missing, checks, warnings };
}
