import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. The redact list is a second line of defence: card data, codes and secrets
 * are never passed to the logger in the first place.
 */
export function createLogger(options: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      redact: {
        paths: ['*.pan', '*.cvv', '*.otp', '*.code', '*.secret', '*.webhookSecret', '*.apiKey', '*.authorization', 'req.headers.authorization'],
        censor: '[redacted]',
      },
    },
    options.destination,
  );
}
