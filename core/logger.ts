import { pino, type Logger } from 'pino';

export type { Logger };

/** Fields whose value is a secret wherever they are, at the top of a log line or one object down. */
const SECRET_FIELDS = ['pan', 'cvv', 'otp', 'secret', 'webhookSecret', 'apiKey', 'authorization'];

/**
 * Structured JSON logs. The redact list is a second line of defence: card data, codes and secrets
 * are never passed to the logger in the first place. `code` is redacted one object down only: at the
 * top of a line it is an error's code (`VALIDATION_ERROR`), which operators need.
 */
export function createLogger(options: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      redact: {
        paths: [...SECRET_FIELDS, ...SECRET_FIELDS.map((field) => `*.${field}`), '*.code', 'req.headers.authorization'],
        censor: '[redacted]',
      },
    },
    options.destination,
  );
}
