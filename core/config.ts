import { z } from 'zod';
import { createKeyring, parseKeys } from './crypto.js';

const port = z.coerce.number().int().min(1).max(65535);

/** Who reads a setting: the three roles, and the tooling around them (docs/configuration.md lists each). */
export type SettingReader = 'api' | 'web' | 'worker' | 'CLI' | 'npm start' | 'tests' | 'bench' | 'verify';

/** What docs/configuration.md says of a setting; `npm run docs:config` renders it, a test keeps the file in step. */
export interface SettingDoc {
  readBy: readonly SettingReader[];
  /** One line: what it is for. */
  meaning: string;
  /** Production refuses to start without it. */
  requiredInProduction?: true;
  /** What production requires of its value, and why. */
  production?: string;
  /** The default in words, when the schema has none of its own (derived from another setting, or absent). */
  default?: string;
  /** What `npm start` sets when the environment does not. */
  npmStart?: string;
}

/** Every setting's documentation, attached to its schema below with `.register(settingDocs, …)`. */
export const settingDocs = z.registry<SettingDoc>();

const ROLES = ['api', 'web', 'worker'] as const;
const EVERY_PROCESS = [...ROLES, 'CLI'] as const;

/** Every variable the service reads from its environment. */
export const environmentSchema = z.object({
  // No default: a deployment that forgot it must not start as sandbox and accept the sandbox OTP.
  CHECKOUT_ENV: z.enum(['sandbox', 'production'], { error: 'is required: sandbox or production' }).register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning:
      '`sandbox` or `production`; production refuses sandbox OTPs, test cards and the simulator. Every entry point without it stops with one line: a forgotten setting must not run as sandbox',
    requiredInProduction: true,
    production:
      '`production`, so no sandbox code, test cards or simulator; registered domains enforced; webhooks https to public addresses only; Secure cookies and HSTS',
    npmStart: '`sandbox`; the tests set it too',
  }),
  API_PORT: port.default(3000).register(settingDocs, { readBy: ['api', 'npm start'], meaning: 'port of the API' }),
  WEB_PORT: port.default(3001).register(settingDocs, { readBy: ['web'], meaning: 'port of the checkout page and the dashboard' }),
  WORKER_METRICS_PORT: port.default(9464).register(settingDocs, {
    readBy: ['worker'],
    meaning:
      "the worker's `GET /metrics` (`METRICS_TOKEN`): its activities' counters and, fetched from `TEMPORAL_SDK_METRICS_ADDRESS`, the Temporal SDK's worker metrics",
  }),
  TEMPORAL_SDK_METRICS_ADDRESS: z
    .string()
    .regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|localhost):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9465')
    .default('127.0.0.1:9465')
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "where the Temporal SDK's own Prometheus exporter listens (host:port, Runtime telemetryOptions); the worker's `/metrics` relays it, so keep it on loopback",
    }),
  API_BASE_URL: z
    .url()
    .optional()
    .register(settingDocs, {
      readBy: ['api', 'npm start'],
      meaning: "the API's public address: OpenAPI `servers`, links given to merchants, the Temporal UI's codec endpoint (`<API_BASE_URL>/codec`)",
      default: '`http://localhost:<API_PORT>`',
      requiredInProduction: true,
      production: '`https://…`, the public address of the API',
    }),
  CHECKOUT_BASE_URL: z
    .url()
    .optional()
    .register(settingDocs, {
      readBy: ['api', 'web', 'CLI'],
      meaning:
        "the checkout page's public address: the redirect is `{CHECKOUT_BASE_URL}/?token=<cartId>`; the page's own origin for form posts; the dashboard's sign-in links",
      default: '`http://localhost:<WEB_PORT>`',
      requiredInProduction: true,
      production: '`https://…`, the public address of the page',
    }),
  DATABASE_URL: z
    .string()
    .min(1, 'is required (postgres://user:pass@host:port/db)')
    .register(settingDocs, {
      readBy: [...EVERY_PROCESS, 'npm start', 'bench'],
      meaning: '`postgres://user:pass@host:port/db`; `npm start` and `npm run bench` run an embedded PostgreSQL when it is unset',
      requiredInProduction: true,
      production: "this deployment's own: a production cart must never share storage with sandbox",
      npmStart: 'its embedded PostgreSQL',
    }),
  TEMPORAL_ADDRESS: z
    .string()
    .default('localhost:7233')
    .register(settingDocs, {
      readBy: [...EVERY_PROCESS, 'npm start', 'bench'],
      meaning: 'the Temporal frontend; `npm start` and `npm run bench` run a Temporal dev server when it is unset',
      production: "this deployment's own (with `TEMPORAL_TLS_*` or `TEMPORAL_API_KEY`)",
      npmStart: 'its Temporal dev server',
    }),
  TEMPORAL_NAMESPACE: z
    .string()
    .default('default')
    .register(settingDocs, { readBy: EVERY_PROCESS, meaning: "the Temporal namespace; the dashboard's links into the Temporal UI open it" }),
  TEMPORAL_TASK_QUEUE: z.string().default('hosted-checkout').register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning: 'the task queue of every workflow; the card vault purge Schedule is `card-vault-purge-<task queue>`',
  }),
  TEMPORAL_EAGER_START: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .register(settingDocs, {
      readBy: ['api'],
      meaning:
        '`true`: the API process runs a cart worker of its own on the task queue, and create-cart starts each session with eager start: the server answers the start with the session\'s first workflow task, run by that worker, instead of queueing it for any worker to poll (the server needs `system.enableEagerWorkflowStart`, scripts/temporal-dynamic-config.ts). The API then bundles the workflows at start and holds the sessions it started in its sticky cache, so it is a worker too: its death is a worker loss (docs/decisions/session-cost.md, "Eager workflow start")',
      npmStart: 'takes it too: its one process already runs the worker beside the API',
    }),
  TEMPORAL_TLS: z.enum(['true', 'false']).optional().register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning: "`true`: TLS to Temporal with the system's trusted roots (implied by any `TEMPORAL_TLS_*` setting and by `TEMPORAL_API_KEY`)",
    default: 'off',
  }),
  TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional().register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning: "mTLS: PEM file of this client's certificate, with `TEMPORAL_TLS_KEY_PATH` (both or neither); read at start",
  }),
  TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional().register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning: "mTLS: PEM file of this client's private key, with `TEMPORAL_TLS_CERT_PATH` (both or neither); read at start",
  }),
  TEMPORAL_TLS_CA_PATH: z
    .string()
    .min(1)
    .optional()
    .register(settingDocs, { readBy: EVERY_PROCESS, meaning: "PEM file of the server's root CA, when the operating system does not trust it" }),
  TEMPORAL_TLS_SERVER_NAME: z
    .string()
    .min(1)
    .optional()
    .register(settingDocs, { readBy: EVERY_PROCESS, meaning: 'overrides the TLS server name (SNI) to expect, e.g. behind a proxy' }),
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'must be smtp://user:pass@host:port or smtps://…' })
    .optional()
    .register(settingDocs, {
      readBy: ['worker', 'web'],
      meaning:
        "one-time codes by email through this SMTP server: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`; a plain-text and HTML message in the merchant's registered name (never the cart's `store.name`) with the code and how long it works, no link or image. With `OTP_EMAIL_FROM` (both or neither). The dashboard (web) sends its sign-in codes and invitations through it too",
      default: 'none: sandbox keeps codes (and the dashboard its mail) in its outboxes',
      requiredInProduction: true,
      production: 'one-time codes by email',
    }),
  OTP_EMAIL_FROM: z
    .string()
    .min(3)
    .optional()
    .register(settingDocs, {
      readBy: ['worker', 'web'],
      meaning: "the From of code emails (the dashboard's mail too), e.g. `Checkout <codes@pay.example>`",
      requiredInProduction: true,
      production: 'one-time codes by email (its domain needs SPF and DKIM for the SMTP provider)',
    }),
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be the account SID, AC + 32 hex digits')
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "one-time codes by SMS through Twilio's Messages API: the account SID (`AC…`), with `TWILIO_AUTH_TOKEN` and `TWILIO_FROM` (all three or none); a refusal by the provider reaches the page as a code that could not be sent",
      default: 'none: sandbox keeps codes in its outbox',
      requiredInProduction: true,
      production: 'one-time codes by SMS',
    }),
  TWILIO_AUTH_TOKEN: z
    .string()
    .min(16)
    .optional()
    .register(settingDocs, { readBy: ['worker'], meaning: "the Twilio account's auth token", requiredInProduction: true, production: 'one-time codes by SMS' }),
  TWILIO_FROM: z
    .string()
    .regex(/^(\+[1-9]\d{7,14}|MG[0-9a-fA-F]{32})$/, 'must be an E.164 number or a Messaging Service SID')
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'the sending number (E.164) or Messaging Service SID (`MG…`)',
      requiredInProduction: true,
      production: "one-time codes by SMS; the number or service must be allowed to send to your customers' countries",
    }),
  TWILIO_API_URL: z
    .url()
    .default('https://api.twilio.com')
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: "Twilio's API; changed only for a stand-in",
      production: 'https (the auth token travels with every request)',
    }),
  PAYMENT_PROCESSOR: z
    .enum(['sandbox', 'stripe'], { error: 'must be sandbox or stripe' })
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'who charges cards: the sandbox simulator (its test cards: docs/checkout-page.md; refused in production) or Stripe',
      default: '`sandbox`',
      requiredInProduction: true,
      production: '`stripe`: the only real processor; the simulator never charges a real card',
    }),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(live|test)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_live_… or sk_test_…) or restricted key (rk_…)')
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: "with `PAYMENT_PROCESSOR=stripe`: Stripe's secret key (`sk_live_…`; `sk_test_…` against test mode or stripe-mock) or a restricted key (`rk_…`)",
      requiredInProduction: true,
      production:
        "`sk_live_…` (or a restricted `rk_live_…` allowed PaymentMethods, PaymentIntents and Refunds) of the account that takes the money; it needs Stripe's raw card data access, as the page collects the card itself",
    }),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]+$/, "must be a Stripe webhook endpoint's signing secret (whsec_…)")
    .optional()
    .register(settingDocs, {
      readBy: ['api'],
      meaning:
        "the signing secret of the Stripe webhook endpoint pointed at `POST /processor-events/stripe` (docs/webhooks.md, Processor events): Stripe's events are verified over the raw body with it; without it that route refuses every event",
      production: "`whsec_…` of the live endpoint: without it disputes, late refunds' failures and early fraud warnings never reach the order",
    }),
  DISPUTE_REMINDERS_BEFORE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be a comma-separated list of milliseconds')
    .default([72 * 3600e3, 24 * 3600e3].join(','))
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "how long before a dispute's evidenceDueBy each reminder (`order_updated` with data.dispute.reminder) goes to the merchant while the dispute needs a response, in ms (72 h and 24 h); configurable so tests see one in seconds",
    }),
  SANDBOX_DISPUTE_RESPONSE_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600)
    .register(settingDocs, {
      readBy: ['api', 'worker'],
      meaning:
        'sandbox only: how long after a sandbox dispute opens its evidenceDueBy falls (7 days, as card networks commonly give); tests shorten it to see the reminders',
    }),
  SANDBOX_DISPUTE_REVIEW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "sandbox only: how long the simulated card network reviews a sandbox dispute's evidence before deciding it (won; accepting loses at once, no answer by evidenceDueBy loses)",
    }),
  STRIPE_API_BASE: z
    .url()
    .default('https://api.stripe.com')
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: "Stripe's API; the tests point it at stripe-mock",
      production: 'https (the secret key travels with every request)',
    }),
  TEMPORAL_API_KEY: z
    .string()
    .min(1)
    .optional()
    .register(settingDocs, { readBy: EVERY_PROCESS, meaning: 'a Temporal Cloud API key (implies TLS); clients and workers send it on every call' }),
  DATA_ENCRYPTION_KEYS: z.string().optional().register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning:
      'the keyring: `id:base64key,…` (ids `[a-z0-9-]{1,32}`, 32-byte keys), newest last. The newest seals the card vault, stored webhook secrets, the OTP outbox and Temporal payloads, and keys the HMACs (OTP hashes, CSRF); every key opens. Set this or `DATA_ENCRYPTION_KEY`, not both; rotation: docs/security.md',
    requiredInProduction: true,
    production: "this deployment's own keys (or `DATA_ENCRYPTION_KEY`), never sandbox's: `k1:$(openssl rand -base64 32)`",
  }),
  DATA_ENCRYPTION_KEY: z.string().optional().register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning: 'one data key alone (the keyring `k0:<key>`), as before keyrings; set this or `DATA_ENCRYPTION_KEYS`, not both',
    production: 'or `DATA_ENCRYPTION_KEYS`, as above',
    npmStart: 'generated into `.data/local-secrets.json`',
  }),
  TEMPORAL_UI_ORIGINS: z
    .string()
    .optional()
    .register(settingDocs, {
      readBy: ['api'],
      meaning: "origins of the Temporal UI allowed to call the API's codec endpoint (`/codec`) from a browser (CORS)",
      default: 'sandbox: `http://localhost:8233,http://127.0.0.1:8233` (the local UI); production: none',
      requiredInProduction: true,
      production:
        "your Temporal UI's own origins: a localhost origin there would let any page served on an operator's machine call the codec with their cookie",
    }),
  TEMPORAL_UI_URL: z
    .url()
    .default('http://localhost:8233')
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        "where operators open the Temporal UI: the dashboard links each cart's workflow (`<url>/namespaces/<TEMPORAL_NAMESPACE>/workflows/cart-<cartId>`)",
      npmStart: 'the UI of the dev server it runs',
    }),
  TEMPORAL_UI_UPSTREAM: z
    .url()
    .optional()
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        "where the web role reaches the Temporal UI server, which it then serves to signed-in operators under `/dashboard/temporal` (the UI started with that public path and the codec endpoint `/dashboard/codec`): the UI decodes on the dashboard's own origin with the operator's dashboard session, with nothing to set in the UI. Unset: the dashboard serves no UI",
      npmStart: 'the UI of the dev server it runs',
    }),
  OPERATOR_TOKEN: z.string().min(24, 'must be at least 24 characters').optional().register(settingDocs, {
    readBy: ROLES,
    meaning:
      "bootstrap bearer token of the operator API and the codec endpoint, and the first operator's dashboard sign-in, until `DASHBOARD_BOOTSTRAP_SIGN_IN=false`; operators then use their personal tokens",
    requiredInProduction: true,
    production: '≥ 24 characters: `openssl rand -hex 24`',
    npmStart: 'generated into `.data/local-secrets.json`',
  }),
  METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional().register(settingDocs, {
    readBy: ROLES,
    meaning:
      "the scrape token of every `/metrics` (API, page, worker), Prometheus's own: it opens nothing else, and `OPERATOR_TOKEN` does not open metrics. Unset: metrics answer 401",
    requiredInProduction: true,
    production: '≥ 24 characters: `openssl rand -hex 24`',
    npmStart: 'generated into `.data/local-secrets.json`',
  }),
  DASHBOARD_BOOTSTRAP_SIGN_IN: z
    .enum(['true', 'false'])
    .default('true')
    .register(settingDocs, {
      readBy: ['api', 'web'],
      meaning:
        "`false`: the dashboard no longer signs in with a merchant's API key, the CLI's sign-in link or `OPERATOR_TOKEN` (the bootstrap of the first owner and the first operator), and the operator API and `/codec` refuse `OPERATOR_TOKEN`; people sign in with their passkeys only, and operators call the API with their personal tokens",
    }),
  // Merchants are promised 45 minutes when they ask for nothing else (`cartObject.cart.sessionMinutes`,
  // 5 to 1440, sets a cart's own); the override exists so tests can watch a session expire, and is
  // refused in production.
  SESSION_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(45 * 60)
    .register(settingDocs, {
      readBy: ['api', 'worker'],
      meaning: 'lifetime of a cart session whose create-cart sent no `cartObject.cart.sessionMinutes`, 45 minutes; only tests shorten it',
      production: 'cannot be changed',
    }),
  // The reminder of an abandoned cart waits its cart's `recovery.reminderMinutes` (5 minutes at the
  // least); the override exists so tests can watch a reminder go out, never through the request, and
  // is refused in production.
  RECOVERY_REMINDER_DELAY_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .register(settingDocs, {
      readBy: ['api', 'tests'],
      meaning:
        "how long after the abandonment every abandoned-cart reminder waits, in place of its cart's `recovery.reminderMinutes`; create-cart hands the delay to the session. Only tests set it",
      default: "unset: each cart's `recovery.reminderMinutes` (60 when absent)",
      production: 'cannot be set',
    }),
  PAYMENT_RESOLUTION_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .register(settingDocs, {
      readBy: ['api'],
      meaning:
        "how long a session whose charge went unanswered keeps asking the processor what happened (lookups, and retries of the charge under the same key) before it fails with `processor_error` and voids by key; it may run past the session's lifetime. Create-cart hands it to the session",
    }),
  // Whole days in production; a fraction of a day is accepted elsewhere so tests can watch a hold expire.
  AUTHORIZATION_HOLD_DAYS: z.coerce
    .number()
    .positive()
    .max(30, 'must be at most 30 (days): card networks release an authorization within a month at the latest')
    .default(7)
    .register(settingDocs, {
      readBy: ['api'],
      meaning:
        'how long a manual-capture order (`captureMethod: "manual"`) stays `authorized`: a hold the merchant neither captures nor voids by then is voided by the session\'s own timer, and the order cancelled (`order_cancelled`, failureCode `authorization_expired`). Create-cart hands it to the session. Keep it within your processor\'s authorization validity (Stripe: 7 days for most cards)',
      production: 'a whole number of days',
    }),
  THREE_DS_CHALLENGE_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .register(settingDocs, {
      readBy: ['api', 'worker'],
      meaning:
        "how long a session waits for the customer to come back from their bank's 3-D Secure challenge; it runs past the session's lifetime, and unanswered the payment is voided and the session fails with `authentication_timeout`. Create-cart hands it to the session; the worker signs the bank's return link (`/3ds/return`) for this long plus 15 minutes",
    }),
  PAYMENT_CONFIRMATION_WAIT_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(90)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        'how long the page shows "Confirming your payment…" before it tells the customer the outcome will follow (no double charge, do not pay again), with a link to `failureUrl`; it keeps checking every 10 s and still redirects once the outcome is known, and the merchant gets the final webhook either way',
    }),
  PAY_OUTCOME_WAIT_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000, 'must be at most 10000: past a few seconds the customer is better told the payment is being confirmed')
    .default(5_000)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        'how long the Pay post waits for the payment\'s outcome before it answers; an outcome within it sends the customer straight to `successUrl` or `failureUrl` (after the first `order_created` attempt\'s head start), one past it gets the "Confirming your payment…" step, which polls',
    }),
  SANDBOX_OTP: z
    .string()
    .regex(/^\d{6}$/, 'must be 6 digits')
    .default('123456')
    .register(settingDocs, {
      readBy: ['web', 'worker'],
      meaning: 'the fixed one-time code sandbox accepts besides the code really sent; the page shows it in sandbox',
      production: 'ignored: only the code really sent is accepted',
    }),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .min(2)
    .default(350)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "open sessions whose workflow state the worker keeps in memory (the sticky cache); the others are replayed from their short history when their next task comes. With 10,000 sessions open the SDK's default (60% of the heap limit, 2310 sessions on a 4 GiB heap) took the worker to 1.9 GiB, 500 to 0.98 GiB and, once sessions grew saved cards and reminders, to 1.08 GiB; 350 to 0.85 GiB (reports/bench-notes.md)",
    }),
  WORKER_SANDBOX_WATCHDOG_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .default(0)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "how long one call into the workflow sandbox may run before the SDK fails its workflow task (a workflow stuck in a loop); 0, the default, starts no watchdog (patches/@temporalio+worker+1.24.0.patch), which saves the OS thread Node starts and joins for every call into the sandbox: a stuck workflow then stalls the workflow thread, and WORKER_STALL_EXIT_SECONDS ends the process (docs/decisions/session-cost.md). 5 is the SDK's own default: the runbook's answer to a workflow that stalls every worker in turn",
    }),
  WORKER_STALL_EXIT_SECONDS: z.coerce
    .number()
    .int()
    .min(2)
    .max(300)
    .default(15)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        'how long workflow activations may stay in flight with none completing, the process busy (a quarter of a core or more: a workflow spinning, not a wait on Temporal), before the worker process exits (code 70) for its supervisor to restart it, and Temporal moves its sessions to the other workers: the liveness answer to a workflow stuck in a loop (worker/workflow-thread-liveness.ts). An activation takes milliseconds',
    }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .register(settingDocs, { readBy: ROLES, meaning: 'pino level; logs are JSON lines' }),
  // platformUuid is public and create-cart needs no credentials, so no one address may exhaust a
  // merchant's allowance: each client address has its own count, and its own per merchant; the
  // merchant-wide ceiling is high enough that only a distributed flood reaches it.
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .register(settingDocs, {
      readBy: ['api', 'web'],
      meaning:
        'window of the create-cart limits, of `RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT`, of the payment-link visit limits and of `RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT`',
    }),
  RATE_LIMIT_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(3000)
    .register(settingDocs, {
      readBy: ['api'],
      meaning: 'create-cart requests per client address per window, bad ones too; a client over it is answered 429 whatever its body',
    }),
  RATE_LIMIT_PER_PLATFORM_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .register(settingDocs, {
      readBy: ['api'],
      meaning: 'create-cart requests per (platformUuid, client address) per window, once the body is valid; raise it for merchants behind one egress address',
    }),
  RATE_LIMIT_PER_PLATFORM: z.coerce
    .number()
    .int()
    .positive()
    .default(20_000)
    .register(settingDocs, {
      readBy: ['api'],
      meaning: 'create-cart requests per platformUuid from everywhere per window: a ceiling against distributed floods',
    }),
  RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .register(settingDocs, {
      readBy: ['web'],
      meaning: 'dashboard sign-in attempts (API key, operator token or link; right or wrong) per client address per `RATE_LIMIT_WINDOW_SECONDS`',
    }),
  RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .register(settingDocs, {
      readBy: ['api', 'web', 'worker'],
      meaning:
        "wrong operator tokens (API's `/operator` and `/codec`) and wrong metrics tokens (every `/metrics`) together per client address per `RATE_LIMIT_WINDOW_SECONDS`; past it, 429 even for the right one",
    }),
  RATE_LIMIT_IPV6_48_CLIENTS: z.coerce
    .number()
    .int()
    .positive()
    .default(4)
    .register(settingDocs, {
      readBy: ['api', 'web', 'worker'],
      meaning:
        "how many clients' allowance all the /64s of one IPv6 /48 share, for every per-address limit that counts an IPv6 client per /64: create-cart's, the checkout page's form posts and one-time codes, dashboard sign-ins and wrong operator tokens",
    }),
  // In-flight customers first: when the API process's event loop runs late (its own load, or cores the
  // worker and Temporal keep busy), create-cart answers 503 OVERLOADED and the page's posts go on
  // (docs/decisions/admission.md has the figures behind the defaults).
  ADMISSION_SHEDDING: z
    .enum(['on', 'off'], { error: 'must be on or off' })
    .default('on')
    .register(settingDocs, {
      readBy: ['api'],
      meaning:
        '`off`: create-cart is never shed, however late the event loop runs (the benchmark measures create-cart throughput so); `on`: create-cart answers 503 `OVERLOADED` with `Retry-After` while the lag is high',
    }),
  ADMISSION_SHED_ABOVE_LAG_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(200)
    .register(settingDocs, {
      readBy: ['api'],
      meaning: "create-cart starts being shed when a second's p99 event-loop delay of the API process reaches this many milliseconds",
    }),
  ADMISSION_ADMIT_BELOW_LAG_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(50)
    .register(settingDocs, {
      readBy: ['api'],
      meaning:
        "create-cart is admitted again once a second's p99 event-loop delay is at or below this, and `ADMISSION_RETRY_AFTER_SECONDS` have passed since shedding began; below `ADMISSION_SHED_ABOVE_LAG_MS`, so a lag between the two changes nothing",
    }),
  ADMISSION_RETRY_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(2)
    .register(settingDocs, {
      readBy: ['api'],
      meaning: 'the `Retry-After` of a shed create-cart, and the least time shedding lasts once begun',
    }),
  RATE_LIMIT_LINK_VISITS_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        'visits of payment links (`/l/<id>`, each opening a new session) per client address per `RATE_LIMIT_WINDOW_SECONDS`, all links together; visits of abandoned-cart recovery links (`/r/<token>`) are counted apart against the same number',
    }),
  RATE_LIMIT_LINK_VISITS_PER_LINK: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        'visits of one payment link per `RATE_LIMIT_WINDOW_SECONDS`, all clients together: a link posted widely cannot be made to open sessions without end',
    }),
  RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(120)
    .register(settingDocs, {
      readBy: ['web'],
      meaning: "posts of the checkout page's forms (send code, resend, verify, pay, cancel) per client address per `RATE_LIMIT_WINDOW_SECONDS`",
    }),
  RATE_LIMIT_CSP_REPORTS_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        'CSP and integrity violation reports (`POST /csp-reports`) accepted per client address per `RATE_LIMIT_WINDOW_SECONDS`; more are answered 429 and not stored',
    }),
  // Against SMS pumping: each cart alone allows 4 sends, these count across carts.
  OTP_SENDS_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(3600)
    .register(settingDocs, {
      readBy: ['web'],
      meaning: "window of the one-time-code send limits (send and resend, across carts), and of the dashboard's sign-in codes",
    }),
  OTP_SENDS_PER_DESTINATION: z.coerce
    .number()
    .int()
    .positive()
    .default(5)
    .register(settingDocs, {
      readBy: ['web'],
      meaning: 'codes sent to one phone number or email per window, across carts; the dashboard counts its sign-in codes per email the same, apart',
    }),
  OTP_SENDS_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(20)
    .register(settingDocs, {
      readBy: ['web'],
      meaning: 'codes requested from one client address per window, across carts; the dashboard counts its sign-in codes per address the same, apart',
    }),
  SMS_PER_MERCHANT_PER_HOUR: z.coerce
    .number()
    .int()
    .positive()
    .default(300)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        "codes sent by SMS per hour for one merchant's carts, whoever asks: against SMS pumping from many addresses and contacts, which the limits above count apart; past it codes go by email only",
    }),
  SMS_PER_DEPLOYMENT_PER_HOUR: z.coerce
    .number()
    .int()
    .positive()
    .default(3000)
    .register(settingDocs, { readBy: ['web'], meaning: 'codes sent by SMS per hour by the whole deployment, whichever merchant' }),
  EMAIL_PER_MERCHANT_PER_HOUR: z.coerce
    .number()
    .int()
    .positive()
    .default(1000)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        "codes sent by email per hour for one merchant's carts, whoever asks: against mail bombing and the sender's reputation, from many addresses and contacts; past it codes go by SMS only",
    }),
  EMAIL_PER_DEPLOYMENT_PER_HOUR: z.coerce
    .number()
    .int()
    .positive()
    .default(10_000)
    .register(settingDocs, { readBy: ['web'], meaning: 'codes sent by email per hour by the whole deployment, whichever merchant' }),
  // A botnet can make public carts for any merchant whose platformUuid it knows: without a share of
  // their own, the merchants that send their API key would lose codes with everyone else.
  OTP_KEYED_SHARE_PERCENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(100)
    .default(50)
    .register(settingDocs, {
      readBy: ['web'],
      meaning:
        "percent of `SMS_PER_DEPLOYMENT_PER_HOUR` and of `EMAIL_PER_DEPLOYMENT_PER_HOUR` that only sessions of carts created with their merchant's API key (`createdWith: api_key`) may spend: sessions of public create-cart requests, and every session minted from a payment link, a retry or a recovery (whoever opens its URL is a stranger), together get the rest (rounded down), so a flood of them cannot switch codes off for every merchant. 0: no share kept",
    }),
  TRUST_PROXY: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(0)
    .register(settingDocs, {
      readBy: ['api', 'web'],
      meaning:
        'how many reverse proxies of ours stand in front of the API and the page. 0: the socket address is the client and `X-Forwarded-For` is ignored (anyone can forge it); n: the n-th address from the right is',
      production: 'the number of your own proxies in front',
    }),
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be a comma-separated list of milliseconds')
    .default([0, 5e3, 5 * 60e3, 30 * 60e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 14 * 3600e3, 20 * 3600e3, 24 * 3600e3].join(','))
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        'delay before each webhook delivery attempt, in ms (docs/decisions/webhooks.md: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h); configurable so tests run the same logic in seconds (e.g. `0,300,500`)',
    }),
  CARD_VAULT_PURGE_EVERY_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(300)
    .register(settingDocs, { readBy: ['worker'], meaning: 'how often the Temporal Schedule `card-vault-purge-<task queue>` deletes old cards' }),
  CARD_VAULT_PURGE_MARGIN_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1800)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'a card is purged once it is older than the session lifetime plus this, whatever became of its session',
    }),
  SAVED_CARDS_REMOVAL_EVERY_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(3600)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        'how often the Temporal Schedule `saved-card-removal-<task queue>` removes saved cards unused too long or past their expiry and detaches removed ones at the processor (docs/saved-cards.md); a customer’s removal also starts it at once',
    }),
  SAVED_CARDS_UNUSED_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(396 * 24 * 3600)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'a saved card unused for this long is removed and detached: 13 months (396 days); configurable so tests run it in seconds',
    }),
  INTEGRITY_CHECK_EVERY_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        'how often the Temporal Schedule `page-integrity-check-<task queue>` walks the payment pages and compares them with the inventory and the header baseline (PCI DSS 11.6.1 asks weekly at least; daily by default); each worker start also runs it once',
    }),
  INTEGRITY_CANARY_MERCHANT_ID: z
    .uuid()
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning:
        "the canary merchant's platform id: the tamper check creates its sandbox carts for it (docs/security.md, Payment page integrity). Without it the worker does not schedule the check and says so at start",
      default: 'none',
    }),
  INTEGRITY_CHECK_API_URL: z
    .url()
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'the API the tamper check creates its canary carts at: a production deployment names its sandbox here',
      default: '`API_BASE_URL`',
    }),
  INTEGRITY_CHECK_PAGE_URL: z
    .url()
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'the checkout page the tamper check walks, as a customer reaches it',
      default: '`CHECKOUT_BASE_URL`',
    }),
  INTEGRITY_ALERT_WEBHOOK_URL: z
    .url()
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'where each new tamper check alert is POSTed (JSON), through the same address rules as merchant webhooks',
      default: 'none: alerts go to the log, the metric and the operator page',
    }),
  INTEGRITY_ALERT_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{24,}$/, 'must be a Standard Webhooks secret, whsec_ and base64')
    .optional()
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'signs the alert webhook like merchant webhooks (`webhook-signature`, docs/webhooks.md)',
      default: 'none: unsigned',
    }),
  WEBHOOK_MANUAL_SENDS_PER_HOUR: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .register(settingDocs, {
      readBy: ['api', 'web'],
      meaning:
        'test events and replays a merchant may send per hour to one target origin (scheme, host and port of the endpoint URL, normalised as a WHATWG URL), whichever of its endpoints has that origin, from the dashboard and the merchant API together: each makes us POST to that URL; adding the URL again as a new endpoint does not start a new count (core/webhooks/manual-sends.ts)',
    }),
  // Off unless said: a deployed sandbox must not let whoever registers a URL probe the worker's own
  // machine and read the answers in the delivery log. Only local development turns it on.
  WEBHOOK_ALLOW_LOOPBACK: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false').register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning:
      "`true`: sandbox merchants' webhooks may go to this machine's loopback (`http://localhost:…`, `127.0.0.1`, `[::1]`), at registration and at delivery, for local development only. Off, a sandbox is held to public addresses like production (docs/webhooks.md)",
    production: 'refused: production webhooks reach the public internet only',
    npmStart: '`true`, so the demo store on localhost receives its webhooks; the tests set it too',
  }),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000).register(settingDocs, {
    readBy: EVERY_PROCESS,
    meaning: 'one webhook attempt (connect, send, read the answer) must finish within this; also the test event of the dashboard and of `check`',
  }),
  WEBHOOK_SECRET_OVERLAP_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3600)
    .register(settingDocs, { readBy: ['api', 'web', 'CLI'], meaning: 'after a rotation, the previous webhook secrets keep signing for this long' }),
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 24 * 3600)
    .register(settingDocs, {
      readBy: ['worker'],
      meaning: 'an endpoint that has failed every attempt for this long is disabled; its events are kept as `skipped`',
    }),
});

/** `npm start`'s own settings (scripts/start.ts): where the launcher runs what it starts. */
export const launcherEnvironmentSchema = z.object({
  HOSTED_CHECKOUT_DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .register(settingDocs, { readBy: ['npm start'], meaning: "where its PostgreSQL, Temporal state, local secrets and the demo store's files live" }),
  EMBEDDED_POSTGRES_PORT: port
    .default(5432)
    .register(settingDocs, { readBy: ['npm start'], meaning: 'port of the embedded PostgreSQL it runs when `DATABASE_URL` is unset' }),
  TEMPORAL_PORT: port
    .default(7233)
    .register(settingDocs, { readBy: ['npm start'], meaning: 'port of the Temporal dev server it runs when `TEMPORAL_ADDRESS` is unset' }),
  TEMPORAL_UI_PORT: port.default(8233).register(settingDocs, { readBy: ['npm start'], meaning: "port of that dev server's Web UI" }),
  DEMO_MERCHANT_PORT: port
    .default(3002)
    .register(settingDocs, { readBy: ['npm start'], meaning: 'the demo store (shop, orders, return pages and its webhook endpoint `/webhooks`)' }),
});

/**
 * Variables the development tooling reads on its own (no schema parses them): documented here so that
 * docs/configuration.md names every variable the repo reads.
 */
export const DEVELOPMENT_VARIABLES: Record<string, SettingDoc & { default: string }> = {
  TEMPORAL_CLI: {
    readBy: ['npm start', 'tests', 'bench'],
    default: '`temporal` on PATH, then the cache',
    meaning: 'path of a `temporal` binary; without one, it is built once into the cache (docs/operations.md); `npm run temporal:provision` does just that',
  },
  STRIPE_MOCK: {
    readBy: ['tests'],
    default: '`stripe-mock` on PATH, then the cache',
    meaning: "path of a `stripe-mock` binary for the Stripe adapter's tests; `npm run stripe-mock:provision` builds it",
  },
  OAPI_CODEGEN: {
    readBy: ['tests'],
    default: '`oapi-codegen` on PATH, then the cache',
    meaning:
      'path of an `oapi-codegen` binary; without one, `npm run clients:provision` builds it into the cache, where the generated-clients test finds it (docs/clients.md)',
  },
  TEMPORAL_TOPOLOGY: {
    readBy: ['tests', 'verify'],
    default: '`dev`',
    meaning:
      "which Temporal the run starts: `dev`, the Temporal CLI's dev server; `server`, production's `temporal-server` on the run's PostgreSQL, set up as `docker-compose.yml` does (docs/going-live.md); the benchmark takes `--topology` instead",
  },
  TEMPORAL_SERVER: {
    readBy: ['tests', 'verify', 'bench'],
    default: '`temporal-server` on PATH, then the cache',
    meaning:
      'path of a `temporal-server` binary with `temporal-sql-tool` and `schema/` beside it, for the `server` topology; `npm run temporal-server:provision` builds them once',
  },
  XDG_CACHE_HOME: { readBy: ['npm start', 'tests', 'bench'], default: '`~/.cache`', meaning: 'the cache holding the built tools, under `hosted-checkout/`' },
  CHROMIUM_PATH: { readBy: ['tests'], default: '`/usr/bin/chromium`', meaning: 'the Chromium the browser tests drive' },
  DOCS_SCREENSHOT: {
    readBy: ['tests'],
    default: 'unset',
    meaning: "`1`: `test/browser/temporal-ui-codec.test.ts` refreshes `docs/temporal-ui-session.png`, the runbook's picture of a session in the Temporal UI",
  },
  CI: { readBy: ['tests'], default: 'unset (`.ci/run` sets `true`)', meaning: '`true`: a missing Chromium fails the browser tests instead of skipping them' },
  RELIABILITY_TRIALS: { readBy: ['tests', 'verify'], default: '2 (`npm run verify`: 20)', meaning: 'trials of each reliability suite' },
  RELIABILITY_SEED: { readBy: ['tests', 'verify'], default: 'random, printed', meaning: "repeats a reliability run's plan exactly" },
  FUZZ_RUNS: { readBy: ['tests', 'verify'], default: '500 (2000 under `npm run verify`)', meaning: 'runs of the create-cart fuzzer' },
  FUZZ_SEED: { readBy: ['tests'], default: 'random, printed', meaning: "repeats a fuzzer run exactly (`npm run verify` sets it to the run's seed)" },
  RECORD_REPLAY_FIXTURES: {
    readBy: ['tests'],
    default: 'unset (`npm run record:replay-fixtures` sets `1`)',
    meaning: "records the current release's workflow histories into `test/fixtures/histories/<version>/` for `test/integration/workflow-replay.test.ts`",
  },
  BENCH_CPU_PROF: {
    readBy: ['bench'],
    default: 'unset',
    meaning: '`api`, `web` or `worker`: that role writes a V8 CPU profile to the temporary folder when it stops',
  },
  FLOOR_SANDBOX: {
    readBy: ['bench'],
    default: '`sdk`',
    meaning:
      "the bench's floor worker (scripts/bench/floor/worker.ts), set by the bench itself: `ours` runs its workflow sandbox as the cart worker's (the stack capture and the watchdog off), `sdk` with the SDK's defaults",
  },
  TEST_WORKFLOW_BUNDLE: {
    readBy: ['tests'],
    default: 'set by the tests',
    meaning: "the workflow bundle file a test's worker process (`test/support/test-worker.ts`) loads, so a restart takes seconds",
  },
  TEST_ACQUIRER_URL: { readBy: ['tests'], default: 'set by the tests', meaning: "the test acquirer a test's worker process charges through" },
};

export const CONFIG_VARIABLES = Object.keys(environmentSchema.shape);

type RawEnvironment = z.output<typeof environmentSchema>;

const isHttps = (url: string) => new URL(url).protocol === 'https:';

/** The local Temporal UI (`npm start`, the dev server), the sandbox's default for TEMPORAL_UI_ORIGINS. */
const SANDBOX_TEMPORAL_UI_ORIGINS = 'http://localhost:8233,http://127.0.0.1:8233';

/**
 * What a production deployment must have, as [variable, problem] pairs: real adapters (Stripe, SMTP,
 * Twilio), its public https addresses, an operator token, a metrics scrape token and its own data keys; and none of local
 * development's allowances (webhooks to loopback). Nothing here has a default, because a production
 * default would be a sandbox one.
 */
function productionProblems(c: RawEnvironment): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  const required = (variable: keyof RawEnvironment, why: string) => {
    if (c[variable] === undefined) problems.push([variable, `is required in production (${why})`]);
  };
  if (c.PAYMENT_PROCESSOR !== 'stripe') {
    problems.push([
      'PAYMENT_PROCESSOR',
      `${c.PAYMENT_PROCESSOR ? 'must be' : 'is required in production:'} stripe (the sandbox simulator never charges a real card)`,
    ]);
  }
  required('STRIPE_SECRET_KEY', 'the Stripe secret key, sk_live_…');
  if (!isHttps(c.STRIPE_API_BASE)) problems.push(['STRIPE_API_BASE', 'must be https in production (the secret key travels with every request)']);
  required('SMTP_URL', 'one-time codes by email: smtp://user:pass@host:587 or smtps://…:465');
  required('OTP_EMAIL_FROM', 'the From of code emails, e.g. "Checkout <codes@pay.example>"');
  required('TWILIO_ACCOUNT_SID', 'one-time codes by SMS: the Twilio account SID, AC…');
  required('TWILIO_AUTH_TOKEN', "one-time codes by SMS: the Twilio account's auth token");
  required('TWILIO_FROM', 'one-time codes by SMS: the sending number or Messaging Service SID');
  if (!isHttps(c.TWILIO_API_URL)) problems.push(['TWILIO_API_URL', 'must be https in production (the auth token travels with every request)']);
  for (const variable of ['API_BASE_URL', 'CHECKOUT_BASE_URL'] as const) {
    const url = c[variable];
    if (url === undefined) problems.push([variable, 'is required in production: the public https address customers and merchants use']);
    else if (!isHttps(url)) problems.push([variable, `must be https in production (it is ${new URL(url).protocol.slice(0, -1)})`]);
  }
  required('OPERATOR_TOKEN', 'the bearer token of /operator and /codec: openssl rand -hex 24');
  required('METRICS_TOKEN', 'the scrape token of every /metrics: openssl rand -hex 24');
  required('TEMPORAL_UI_ORIGINS', 'the origins of your Temporal UI allowed to call /codec, e.g. https://temporal.pay.example');
  if (c.WEBHOOK_ALLOW_LOOPBACK === 'true') {
    problems.push([
      'WEBHOOK_ALLOW_LOOPBACK',
      "cannot be true in production (production webhooks reach the public internet only, never this machine's loopback)",
    ]);
  }
  if (c.DATA_ENCRYPTION_KEYS === undefined && c.DATA_ENCRYPTION_KEY === undefined) {
    problems.push(['DATA_ENCRYPTION_KEYS', "is required in production (this deployment's own keys: k1:$(openssl rand -base64 32))"]);
  }
  return problems;
}

/** The typed configuration, parsed once from the environment. */
export const configSchema = environmentSchema
  .superRefine((c, ctx) => {
    const production = c.CHECKOUT_ENV === 'production';
    const noKeys = c.DATA_ENCRYPTION_KEYS === undefined && c.DATA_ENCRYPTION_KEY === undefined;
    const path = [c.DATA_ENCRYPTION_KEYS === undefined ? 'DATA_ENCRYPTION_KEY' : 'DATA_ENCRYPTION_KEYS'];
    if (!(production && noKeys)) {
      for (const message of parseKeys({ keys: c.DATA_ENCRYPTION_KEYS, key: c.DATA_ENCRYPTION_KEY }).problems) ctx.addIssue({ code: 'custom', path, message });
    }
    if (production) for (const [variable, message] of productionProblems(c)) ctx.addIssue({ code: 'custom', path: [variable], message });
    if (!production && c.PAYMENT_PROCESSOR === 'stripe' && c.STRIPE_SECRET_KEY === undefined) {
      ctx.addIssue({ code: 'custom', path: ['STRIPE_SECRET_KEY'], message: 'is required with PAYMENT_PROCESSOR=stripe' });
    }
    // Production names each missing half on its own line (productionProblems).
    if (!production && (c.SMTP_URL === undefined) !== (c.OTP_EMAIL_FROM === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['OTP_EMAIL_FROM'], message: 'and SMTP_URL go together (code emails need a server and a sender)' });
    }
    const twilio = [c.TWILIO_ACCOUNT_SID, c.TWILIO_AUTH_TOKEN, c.TWILIO_FROM].filter((v) => v !== undefined).length;
    if (!production && twilio !== 0 && twilio !== 3) {
      ctx.addIssue({ code: 'custom', path: ['TWILIO_ACCOUNT_SID'], message: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM go together' });
    }
    if (c.ADMISSION_ADMIT_BELOW_LAG_MS >= c.ADMISSION_SHED_ABOVE_LAG_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['ADMISSION_ADMIT_BELOW_LAG_MS'],
        message: `must be below ADMISSION_SHED_ABOVE_LAG_MS (${c.ADMISSION_SHED_ABOVE_LAG_MS}): the gap between the two keeps shedding from flapping`,
      });
    }
    if ((c.TEMPORAL_TLS_CERT_PATH === undefined) !== (c.TEMPORAL_TLS_KEY_PATH === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS_CERT_PATH'], message: 'and TEMPORAL_TLS_KEY_PATH go together (mTLS needs both)' });
    }
    if (c.CHECKOUT_ENV === 'production' && !Number.isInteger(c.AUTHORIZATION_HOLD_DAYS)) {
      ctx.addIssue({ code: 'custom', path: ['AUTHORIZATION_HOLD_DAYS'], message: 'must be a whole number of days in production' });
    }
    if (c.CHECKOUT_ENV === 'production' && c.RECOVERY_REMINDER_DELAY_SECONDS !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['RECOVERY_REMINDER_DELAY_SECONDS'],
        message: "cannot be set in production (reminders wait their cart's reminderMinutes)",
      });
    }
    if (c.CHECKOUT_ENV === 'production' && c.SESSION_LIFETIME_SECONDS !== 45 * 60) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_LIFETIME_SECONDS'], message: 'cannot be changed in production (sessions last 45 minutes)' });
    }
  })
  .transform((c) => ({
    environment: c.CHECKOUT_ENV,
    apiPort: c.API_PORT,
    webPort: c.WEB_PORT,
    workerMetrics: { port: c.WORKER_METRICS_PORT, temporalSdkAddress: c.TEMPORAL_SDK_METRICS_ADDRESS },
    apiBaseUrl: (c.API_BASE_URL ?? `http://localhost:${c.API_PORT}`).replace(/\/+$/, ''),
    checkoutBaseUrl: (c.CHECKOUT_BASE_URL ?? `http://localhost:${c.WEB_PORT}`).replace(/\/+$/, ''),
    databaseUrl: c.DATABASE_URL,
    temporal: {
      address: c.TEMPORAL_ADDRESS,
      namespace: c.TEMPORAL_NAMESPACE,
      taskQueue: c.TEMPORAL_TASK_QUEUE,
      eagerStart: c.TEMPORAL_EAGER_START === 'true',
      tls:
        c.TEMPORAL_TLS === 'true' || c.TEMPORAL_TLS_CERT_PATH || c.TEMPORAL_TLS_CA_PATH || c.TEMPORAL_TLS_SERVER_NAME || c.TEMPORAL_API_KEY
          ? { certPath: c.TEMPORAL_TLS_CERT_PATH, keyPath: c.TEMPORAL_TLS_KEY_PATH, caPath: c.TEMPORAL_TLS_CA_PATH, serverName: c.TEMPORAL_TLS_SERVER_NAME }
          : undefined,
      apiKey: c.TEMPORAL_API_KEY,
    },
    keyring: createKeyring(parseKeys({ keys: c.DATA_ENCRYPTION_KEYS, key: c.DATA_ENCRYPTION_KEY }).keys),
    temporalUiOrigins: (c.TEMPORAL_UI_ORIGINS ?? SANDBOX_TEMPORAL_UI_ORIGINS)
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    temporalUiUrl: c.TEMPORAL_UI_URL.replace(/\/+$/, ''),
    ...(c.TEMPORAL_UI_UPSTREAM ? { temporalUiUpstream: c.TEMPORAL_UI_UPSTREAM.replace(/\/+$/, '') } : {}),
    operatorToken: c.OPERATOR_TOKEN,
    /** Prometheus's bearer token for every `/metrics`, apart from the operator's (docs/operations.md). */
    metricsToken: c.METRICS_TOKEN,
    /** The API key, sign-in link and OPERATOR_TOKEN still sign in to the dashboard (docs/decisions/dashboard.md). */
    dashboardBootstrapSignIn: c.DASHBOARD_BOOTSTRAP_SIGN_IN === 'true',
    sessionLifetimeMs: c.SESSION_LIFETIME_SECONDS * 1000,
    paymentResolutionMs: c.PAYMENT_RESOLUTION_SECONDS * 1000,
    /** Tests' one delay for every abandoned-cart reminder; undefined: each cart's reminderMinutes. */
    recoveryReminderDelayMs: c.RECOVERY_REMINDER_DELAY_SECONDS === undefined ? undefined : c.RECOVERY_REMINDER_DELAY_SECONDS * 1000,
    authorizationHoldMs: Math.round(c.AUTHORIZATION_HOLD_DAYS * 24 * 3600_000),
    paymentConfirmationWaitMs: c.PAYMENT_CONFIRMATION_WAIT_SECONDS * 1000,
    payOutcomeWaitMs: c.PAY_OUTCOME_WAIT_MS,
    threeDSecureChallengeMs: c.THREE_DS_CHALLENGE_SECONDS * 1000,
    sandboxOtp: c.SANDBOX_OTP,
    logLevel: c.LOG_LEVEL,
    worker: {
      maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS,
      sandboxWatchdogMs: c.WORKER_SANDBOX_WATCHDOG_SECONDS * 1000,
      stallExitMs: c.WORKER_STALL_EXIT_SECONDS * 1000,
    },
    rateLimit: {
      windowSeconds: c.RATE_LIMIT_WINDOW_SECONDS,
      perClient: c.RATE_LIMIT_PER_CLIENT,
      perPlatformClient: c.RATE_LIMIT_PER_PLATFORM_CLIENT,
      perPlatform: c.RATE_LIMIT_PER_PLATFORM,
      pageActionsPerClient: c.RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT,
      cspReportsPerClient: c.RATE_LIMIT_CSP_REPORTS_PER_CLIENT,
      linkVisitsPerClient: c.RATE_LIMIT_LINK_VISITS_PER_CLIENT,
      linkVisitsPerLink: c.RATE_LIMIT_LINK_VISITS_PER_LINK,
      dashboardSignInsPerClient: c.RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT,
      ipv6Clients48: c.RATE_LIMIT_IPV6_48_CLIENTS,
      operatorAuthFailuresPerClient: c.RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT,
    },
    /** Create-cart's admission against the API process's event-loop delay (api/admission/). */
    admission: {
      shedding: c.ADMISSION_SHEDDING === 'on',
      shedAboveLagMs: c.ADMISSION_SHED_ABOVE_LAG_MS,
      admitBelowLagMs: c.ADMISSION_ADMIT_BELOW_LAG_MS,
      retryAfterSeconds: c.ADMISSION_RETRY_AFTER_SECONDS,
    },
    otpSends: {
      windowSeconds: c.OTP_SENDS_WINDOW_SECONDS,
      perDestination: c.OTP_SENDS_PER_DESTINATION,
      perClient: c.OTP_SENDS_PER_CLIENT,
      smsPerMerchantPerHour: c.SMS_PER_MERCHANT_PER_HOUR,
      smsPerDeploymentPerHour: c.SMS_PER_DEPLOYMENT_PER_HOUR,
      emailPerMerchantPerHour: c.EMAIL_PER_MERCHANT_PER_HOUR,
      emailPerDeploymentPerHour: c.EMAIL_PER_DEPLOYMENT_PER_HOUR,
      keyedSharePercent: c.OTP_KEYED_SHARE_PERCENT,
    },
    trustedProxyHops: c.TRUST_PROXY,
    payments:
      c.PAYMENT_PROCESSOR === 'stripe' && c.STRIPE_SECRET_KEY
        ? { processor: 'stripe' as const, stripe: { secretKey: c.STRIPE_SECRET_KEY, apiBase: c.STRIPE_API_BASE.replace(/\/+$/, '') } }
        : { processor: 'sandbox' as const },
    otpDelivery: {
      email: c.SMTP_URL && c.OTP_EMAIL_FROM ? { smtpUrl: c.SMTP_URL, from: c.OTP_EMAIL_FROM } : undefined,
      sms:
        c.TWILIO_ACCOUNT_SID && c.TWILIO_AUTH_TOKEN && c.TWILIO_FROM
          ? { accountSid: c.TWILIO_ACCOUNT_SID, authToken: c.TWILIO_AUTH_TOKEN, from: c.TWILIO_FROM, apiUrl: c.TWILIO_API_URL }
          : undefined,
    },
    processorEvents: { stripeWebhookSecret: c.STRIPE_WEBHOOK_SECRET },
    disputes: {
      remindersBeforeMs: c.DISPUTE_REMINDERS_BEFORE_MS.split(',').map(Number),
      sandboxResponseMs: c.SANDBOX_DISPUTE_RESPONSE_SECONDS * 1000,
      sandboxReviewMs: c.SANDBOX_DISPUTE_REVIEW_SECONDS * 1000,
    },
    cardVault: { purgeEveryMs: c.CARD_VAULT_PURGE_EVERY_SECONDS * 1000, purgeMarginMs: c.CARD_VAULT_PURGE_MARGIN_SECONDS * 1000 },
    integrityCheck: {
      everyMs: c.INTEGRITY_CHECK_EVERY_SECONDS * 1000,
      apiUrl: (c.INTEGRITY_CHECK_API_URL ?? c.API_BASE_URL ?? `http://localhost:${c.API_PORT}`).replace(/\/+$/, ''),
      pageUrl: (c.INTEGRITY_CHECK_PAGE_URL ?? c.CHECKOUT_BASE_URL ?? `http://localhost:${c.WEB_PORT}`).replace(/\/+$/, ''),
      canaryMerchantId: c.INTEGRITY_CANARY_MERCHANT_ID,
      alertWebhook: c.INTEGRITY_ALERT_WEBHOOK_URL ? { url: c.INTEGRITY_ALERT_WEBHOOK_URL, secret: c.INTEGRITY_ALERT_WEBHOOK_SECRET } : undefined,
    },
    savedCards: { removalEveryMs: c.SAVED_CARDS_REMOVAL_EVERY_SECONDS * 1000, unusedMs: c.SAVED_CARDS_UNUSED_SECONDS * 1000 },
    webhooks: {
      retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number),
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      secretOverlapMs: c.WEBHOOK_SECRET_OVERLAP_SECONDS * 1000,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
      manualSendsPerHour: c.WEBHOOK_MANUAL_SENDS_PER_HOUR,
      /** Never true in production (productionProblems); core/outbound/url-safety.ts webhookTargets applies it. */
      allowLoopback: c.WEBHOOK_ALLOW_LOOPBACK === 'true',
    },
  }));

export type Config = z.output<typeof configSchema>;
export type Environment = Config['environment'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment, failing fast with one line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/**
 * For a process's entry point: the configuration, or one line per problem on stderr and exit code 1
 * (no stack trace: the operator needs the variable and the fix, not our call stack).
 */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
