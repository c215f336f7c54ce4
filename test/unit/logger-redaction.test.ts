import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';

/** The lines a logger wrote, parsed. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    name: 'test',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe('the logger’s redaction, the second line of defence', () => {
  it('redacts a card number, a code and a secret at the top of a line and one object down', () => {
    const { logger, lines } = capture();
    logger.info(
      { pan: '4242424242424242', cvv: '123', otp: '123456', apiKey: 'sk_sandbox_x', card: { pan: '4242424242424242' }, check: { code: '123456' } },
      'line',
    );
    expect(lines[0]).toMatchObject({
      pan: '[redacted]',
      cvv: '[redacted]',
      otp: '[redacted]',
      apiKey: '[redacted]',
      card: { pan: '[redacted]' },
      check: { code: '[redacted]' },
    });
  });

  it('keeps an error’s code at the top of a line, which operators read', () => {
    const { logger, lines } = capture();
    logger.warn({ code: 'VALIDATION_ERROR' }, 'refused');
    expect(lines[0]).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
