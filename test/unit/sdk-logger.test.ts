import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { sdkLoggerFrom } from '../../worker/sdk-logger.js';
import { smtpFailure } from '../../core/checkout/otp/delivery/email.js';

describe('sdkLoggerFrom', () => {
  it('writes the SDK’s lines through our logger at their level, its `error` serialized as `err`, with our redaction', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', name: 'test', destination: { write: (line: string) => void lines.push(line) } });
    const sdk = sdkLoggerFrom(logger);
    sdk.warn('Activity failed', { error: new Error('provider down'), durationMs: 12, activity: { code: '123456' } });
    sdk.log('DEBUG', 'polling', { taskQueue: 'q' });
    sdk.trace('below the level');
    const [warn, debug, ...rest] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warn).toMatchObject({
      level: 40,
      msg: 'Activity failed',
      durationMs: 12,
      err: { type: 'Error', message: 'provider down' },
      activity: { code: '[redacted]' },
    });
    expect(warn).not.toHaveProperty('error');
    expect(debug).toMatchObject({ level: 20, msg: 'polling', taskQueue: 'q' });
    expect(rest).toEqual([]);
  });
});

describe('smtpFailure', () => {
  it('keeps nodemailer’s kind of failure and the status codes, never the server’s text naming the recipient', () => {
    const rejected = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <jane@example.com>: user unknown"), {
      code: 'EENVELOPE',
      responseCode: 550,
      response: '550 5.1.1 <jane@example.com>: user unknown',
      rejected: ['jane@example.com'],
    });
    expect(smtpFailure(rejected).message).toBe('SMTP send failed (EENVELOPE): the server answered 550 5.1.1');
    expect(smtpFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })).message).toBe('SMTP send failed (ESOCKET)');
    expect(smtpFailure('odd').message).toBe('SMTP send failed');
  });
});
