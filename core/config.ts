import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
const base64Key = z
  .string()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded (try: openssl rand -base64 32)');

/** Every variable the service reads from its environment. */
const environmentSchema = z.object({
    CHECKOUT_ENV: z.enum(['sandbox', 'production']).default('sandbox'),
    API_PORT: port.default(3000),
    WEB_PORT: port.default(3001),
    API_BASE_URL: z.url().optional(),
    CHECKOUT_BASE_URL: z.url().optional(),
    DATABASE_URL: z.string().min(1, 'is required (postgres://user:pass@host:port/db)'),
    TEMPORAL_ADDRESS: z.string().default('localhost:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('hosted-checkout'),
    /** AES-256-GCM key for the card vault and stored webhook secrets, and the HMAC key for OTP hashes. */
    DATA_ENCRYPTION_KEY: base64Key,
    /** Bearer token of the operator API. */
    OPERATOR_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    /**
     * Lifetime of a cart session. The spec fixes it at 45 minutes; the override exists so tests can
     * watch a session expire, and is refused in production.
     */
    SESSION_LIFETIME_SECONDS: z.coerce.number().int().positive().default(45 * 60),
    SANDBOX_OTP: z.string().regex(/^\d{6}$/, 'must be 6 digits').default('123456'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const CONFIG_VARIABLES = Object.keys(environmentSchema.shape);

/** The typed configuration, parsed once from the environment. */
export const configSchema = environmentSchema
  .superRefine((c, ctx) => {
    if (c.CHECKOUT_ENV === 'production' && c.SESSION_LIFETIME_SECONDS !== 45 * 60) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_LIFETIME_SECONDS'], message: 'cannot be changed in production (sessions last 45 minutes)' });
    }
  })
  .transform((c) => ({
    environment: c.CHECKOUT_ENV,
    apiPort: c.API_PORT,
    webPort: c.WEB_PORT,
    apiBaseUrl: (c.API_BASE_URL ?? `http://localhost:${c.API_PORT}`).replace(/\/+$/, ''),
    checkoutBaseUrl: (c.CHECKOUT_BASE_URL ?? `http://localhost:${c.WEB_PORT}`).replace(/\/+$/, ''),
    databaseUrl: c.DATABASE_URL,
    temporal: { address: c.TEMPORAL_ADDRESS, namespace: c.TEMPORAL_NAMESPACE, taskQueue: c.TEMPORAL_TASK_QUEUE },
    dataEncryptionKey: Buffer.from(c.DATA_ENCRYPTION_KEY, 'base64'),
    operatorToken: c.OPERATOR_TOKEN,
    sessionLifetimeMs: c.SESSION_LIFETIME_SECONDS * 1000,
    sandboxOtp: c.SANDBOX_OTP,
    logLevel: c.LOG_LEVEL,
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
