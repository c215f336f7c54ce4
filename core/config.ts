import { z } from 'zod';
import { createKeyring, parseKeys } from './crypto.js';

const port = z.coerce.number().int().min(1).max(65535);

/** Every variable the service reads from its environment. */
const environmentSchema = z.object({
  /** No default: a deployment that forgot it must not start as sandbox and accept the sandbox OTP. npm start and the tests set it. */
  CHECKOUT_ENV: z.enum(['sandbox', 'production'], { error: 'is required: sandbox or production' }),
  API_PORT: port.default(3000),
  WEB_PORT: port.default(3001),
  /** The worker's `GET /metrics`: the activities' counters and, fetched from the address below, the Temporal SDK's worker metrics. */
  WORKER_METRICS_PORT: port.default(9464),
  /** Where the Temporal SDK's own Prometheus exporter listens (Runtime telemetryOptions); keep it on loopback, the worker's /metrics relays it. */
  TEMPORAL_SDK_METRICS_ADDRESS: z
    .string()
    .regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|localhost):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9465')
    .default('127.0.0.1:9465'),
  API_BASE_URL: z.url().optional(),
  CHECKOUT_BASE_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1, 'is required (postgres://user:pass@host:port/db)'),
  TEMPORAL_ADDRESS: z.string().default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('hosted-checkout'),
  /** `true` for TLS with the system's trusted roots (implied by any setting below). */
  TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
  /** mTLS: PEM files of this client's certificate and key (both or neither). */
  TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
  /** PEM file of the server's root CA, when the operating system does not trust it. */
  TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
  /** Overrides the TLS server name (SNI), e.g. behind a proxy. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** One-time codes by email: `smtp://user:pass@host:587` or `smtps://user:pass@host:465`. Production needs it. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be smtp://user:pass@host:port or smtps://…' }).optional(),
  /** The From of code emails, e.g. `Checkout <codes@pay.example>`. */
  OTP_EMAIL_FROM: z.string().min(3).optional(),
  /** One-time codes by SMS through Twilio's Messages API. Production needs all three. */
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be the account SID, AC + 32 hex digits')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().min(16).optional(),
  /** The sending number (E.164) or a Messaging Service SID (MG…). */
  TWILIO_FROM: z
    .string()
    .regex(/^(\+[1-9]\d{7,14}|MG[0-9a-fA-F]{32})$/, 'must be an E.164 number or a Messaging Service SID')
    .optional(),
  TWILIO_API_URL: z.url().default('https://api.twilio.com'),
  /** Who charges cards: the sandbox simulator (sandbox only) or Stripe. Production needs `stripe`. */
  PAYMENT_PROCESSOR: z.enum(['sandbox', 'stripe'], { error: 'must be sandbox or stripe' }).optional(),
  /** Stripe's secret (or restricted) key: sk_live_… in production, sk_test_… against test mode or stripe-mock. */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(live|test)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_live_… or sk_test_…) or restricted key (rk_…)')
    .optional(),
  /** Where Stripe's API is: Stripe's own unless a test points it at stripe-mock. https in production. */
  STRIPE_API_BASE: z.url().default('https://api.stripe.com'),
  /** Temporal Cloud API key; implies TLS. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /**
   * The data keys: `id:base64key,…`, newest last. The newest seals the card vault, stored webhook
   * secrets, the OTP outbox and Temporal payloads, and keys the HMACs (OTP hashes, CSRF); every key opens.
   */
  DATA_ENCRYPTION_KEYS: z.string().optional(),
  /** One data key alone (the keyring `k0:<key>`), as before keyrings; set this or DATA_ENCRYPTION_KEYS. */
  DATA_ENCRYPTION_KEY: z.string().optional(),
  /**
   * Origins of the Temporal UI allowed to call the API's codec endpoint (/codec) from a browser. Sandbox
   * defaults to the local UI's; production has no default (a localhost origin there would let any page
   * served on an operator's machine call the codec with their cookie).
   */
  TEMPORAL_UI_ORIGINS: z.string().optional(),
  /** Where operators open the Temporal UI: the dashboard links each cart to its workflow there (in TEMPORAL_NAMESPACE). */
  TEMPORAL_UI_URL: z.url().default('http://localhost:8233'),
  /** Bearer token of the operator API. */
  OPERATOR_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /**
   * Lifetime of a cart session. The spec fixes it at 45 minutes; the override exists so tests can
   * watch a session expire, and is refused in production.
   */
  SESSION_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(45 * 60),
  /**
   * How long a session whose charge went unanswered keeps asking the processor what happened (lookup,
   * and retries of the charge under the same key) before it fails with processor_error and voids by
   * key. It may run past the session's lifetime.
   */
  PAYMENT_RESOLUTION_SECONDS: z.coerce.number().int().positive().default(600),
  /**
   * How long the page keeps the customer on "Confirming your payment…" before saying the outcome will
   * follow (the merchant still gets the final webhook; the page keeps checking, more slowly).
   */
  PAYMENT_CONFIRMATION_WAIT_SECONDS: z.coerce.number().int().positive().default(90),
  SANDBOX_OTP: z
    .string()
    .regex(/^\d{6}$/, 'must be 6 digits')
    .default('123456'),
  /**
   * Open sessions whose workflow state the worker keeps in memory (the sticky cache); the others are
   * replayed from their short history when their next task comes. Each costs about 0.8 MiB: the SDK's
   * default (60% of the heap limit, 2310 sessions on a 4 GiB heap) took the worker to 1.9 GiB with
   * 10,000 sessions open, 1000 to 1.1 GiB with 2000 open, 500 to 0.86 GiB (reports/bench-notes.md).
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).default(500),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Create-cart requests allowed per window. platformUuid is public and create-cart needs no
   * credentials, so no one address may exhaust a merchant's allowance: each client address has its
   * own count (PER_CLIENT), and its own per merchant (PER_PLATFORM_CLIENT); the merchant-wide ceiling
   * (PER_PLATFORM) is high enough that only a distributed flood reaches it.
   */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  RATE_LIMIT_PER_CLIENT: z.coerce.number().int().positive().default(3000),
  RATE_LIMIT_PER_PLATFORM_CLIENT: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_PER_PLATFORM: z.coerce.number().int().positive().default(20_000),
  /** How many clients' allowance all the /64s of one IPv6 /48 share, for every per-client limit of create-cart. */
  RATE_LIMIT_IPV6_48_CLIENTS: z.coerce.number().int().positive().default(4),
  /** Dashboard sign-in attempts (API key or operator token, right or wrong) per client address per RATE_LIMIT_WINDOW_SECONDS. */
  RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT: z.coerce.number().int().positive().default(10),
  /** Wrong operator tokens (on /operator, /metrics and /codec of the API, /metrics of the page) per client address per RATE_LIMIT_WINDOW_SECONDS. */
  RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT: z.coerce.number().int().positive().default(10),
  /** Posts of the checkout page's forms allowed per client address per RATE_LIMIT_WINDOW_SECONDS. */
  RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: z.coerce.number().int().positive().default(120),
  /**
   * One-time codes sent (send and resend) per window, across carts: to one destination (phone or
   * email), and at the request of one client address. Against SMS pumping: each cart alone allows 4.
   */
  OTP_SENDS_WINDOW_SECONDS: z.coerce.number().int().positive().default(3600),
  OTP_SENDS_PER_DESTINATION: z.coerce.number().int().positive().default(5),
  OTP_SENDS_PER_CLIENT: z.coerce.number().int().positive().default(20),
  /**
   * How many reverse proxies of ours stand in front of the API. 0: the socket address is the client
   * and X-Forwarded-For is ignored (anyone can forge it); n: the n-th address from the right is.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Delay before each webhook delivery attempt, in ms (docs/decisions/webhooks.md: immediately, 5 s, 5 min, 30 min,
   * 2 h, 5 h, 10 h, 14 h, 20 h, 24 h). Configurable so tests can run the same logic in seconds.
   */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be a comma-separated list of milliseconds')
    .default([0, 5e3, 5 * 60e3, 30 * 60e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 14 * 3600e3, 20 * 3600e3, 24 * 3600e3].join(',')),
  /** One webhook attempt (connect, send, read the answer) must finish within this. */
  /** How often the card vault purge runs (a Temporal Schedule). */
  CARD_VAULT_PURGE_EVERY_SECONDS: z.coerce.number().int().positive().default(300),
  /** A card is purged once it is older than the session lifetime plus this, whatever became of its session. */
  CARD_VAULT_PURGE_MARGIN_SECONDS: z.coerce.number().int().min(0).default(1800),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** Test events and replays a merchant may send from the dashboard per hour: each makes us POST to its URL. */
  WEBHOOK_MANUAL_SENDS_PER_HOUR: z.coerce.number().int().positive().default(30),
  /** After a rotation, the previous secrets keep signing for this long. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3600),
  /** An endpoint that has failed every attempt for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 24 * 3600),
});

export const CONFIG_VARIABLES = Object.keys(environmentSchema.shape);

type RawEnvironment = z.output<typeof environmentSchema>;

const isHttps = (url: string) => new URL(url).protocol === 'https:';

/** The local Temporal UI (`npm start`, the dev server), the sandbox's default for TEMPORAL_UI_ORIGINS. */
const SANDBOX_TEMPORAL_UI_ORIGINS = 'http://localhost:8233,http://127.0.0.1:8233';

/**
 * What a production deployment must have, as [variable, problem] pairs: real adapters (Stripe, SMTP,
 * Twilio), its public https addresses, an operator token and its own data keys. Nothing here has a
 * default, because a production default would be a sandbox one.
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
  required('OPERATOR_TOKEN', 'the bearer token of /operator and /metrics: openssl rand -hex 24');
  required('TEMPORAL_UI_ORIGINS', 'the origins of your Temporal UI allowed to call /codec, e.g. https://temporal.pay.example');
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
    if ((c.TEMPORAL_TLS_CERT_PATH === undefined) !== (c.TEMPORAL_TLS_KEY_PATH === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS_CERT_PATH'], message: 'and TEMPORAL_TLS_KEY_PATH go together (mTLS needs both)' });
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
    operatorToken: c.OPERATOR_TOKEN,
    sessionLifetimeMs: c.SESSION_LIFETIME_SECONDS * 1000,
    paymentResolutionMs: c.PAYMENT_RESOLUTION_SECONDS * 1000,
    paymentConfirmationWaitMs: c.PAYMENT_CONFIRMATION_WAIT_SECONDS * 1000,
    sandboxOtp: c.SANDBOX_OTP,
    logLevel: c.LOG_LEVEL,
    worker: { maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS },
    rateLimit: {
      windowSeconds: c.RATE_LIMIT_WINDOW_SECONDS,
      perClient: c.RATE_LIMIT_PER_CLIENT,
      perPlatformClient: c.RATE_LIMIT_PER_PLATFORM_CLIENT,
      perPlatform: c.RATE_LIMIT_PER_PLATFORM,
      ipv6Clients48: c.RATE_LIMIT_IPV6_48_CLIENTS,
      pageActionsPerClient: c.RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT,
      dashboardSignInsPerClient: c.RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT,
      operatorAuthFailuresPerClient: c.RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT,
    },
    otpSends: { windowSeconds: c.OTP_SENDS_WINDOW_SECONDS, perDestination: c.OTP_SENDS_PER_DESTINATION, perClient: c.OTP_SENDS_PER_CLIENT },
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
    cardVault: { purgeEveryMs: c.CARD_VAULT_PURGE_EVERY_SECONDS * 1000, purgeMarginMs: c.CARD_VAULT_PURGE_MARGIN_SECONDS * 1000 },
    webhooks: {
      retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number),
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      secretOverlapMs: c.WEBHOOK_SECRET_OVERLAP_SECONDS * 1000,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
      manualSendsPerHour: c.WEBHOOK_MANUAL_SENDS_PER_HOUR,
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
