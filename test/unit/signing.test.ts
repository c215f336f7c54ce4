import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureFor, webhookHeaders } from '../../core/webhooks/signing.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';

const secret = newWebhookSecret();
const body = JSON.stringify({ id: 'evt_1', event: 'order_created', data: { cartId: 'c', extra: { a: 'b' } } });
const now = new Date('2030-01-01T00:00:00Z');
const ts = Math.floor(now.getTime() / 1000);
const headersFor = (secrets: string[], at = ts, rawBody = body) =>
  webhookHeaders({ eventId: 'evt_1', event: 'order_created', attempt: 1, rawBody, secrets, timestampSeconds: at });

describe('webhook signing (Standard Webhooks)', () => {
  it('makes secrets of the form whsec_ + base64 of 32 random bytes, never twice the same', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs HMAC-SHA256 over "<id>.<timestamp>.<body>" with the decoded key, as v1,<base64>', () => {
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`evt_1.${ts}.${body}`)
      .digest('base64');
    expect(signatureFor(secret, 'evt_1', ts, body)).toBe(`v1,${expected}`);
  });

  it('matches the standardwebhooks library byte for byte', () => {
    expect(signatureFor(secret, 'evt_1', ts, body)).toBe(new Webhook(secret).sign('evt_1', now, body));
  });

  it('sends the same signature list in X-Client-Signature and webhook-signature, one entry per live secret', () => {
    const other = newWebhookSecret();
    const headers = headersFor([secret, other]);
    expect(headers['x-client-signature']).toBe(headers['webhook-signature']);
    expect(headers['webhook-signature']!.split(' ')).toEqual([signatureFor(secret, 'evt_1', ts, body), signatureFor(other, 'evt_1', ts, body)]);
    expect(headers).toMatchObject({
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(ts),
      'x-client-event': 'order_created',
      'x-client-delivery-attempt': '1',
      'content-type': 'application/json',
    });
  });
});

describe('verifyWebhook', () => {
  it('accepts a genuine delivery and returns its event', () => {
    const result = verifyWebhook(body, headersFor([secret]), secret, { now });
    expect(result).toEqual({ valid: true, event: JSON.parse(body) });
  });

  it('accepts during rotation with either the old or the new secret', () => {
    const fresh = newWebhookSecret();
    const headers = headersFor([fresh, secret]);
    expect(verifyWebhook(body, headers, secret, { now }).valid).toBe(true);
    expect(verifyWebhook(body, headers, fresh, { now }).valid).toBe(true);
    expect(verifyWebhook(body, headersFor([fresh]), [secret, fresh], { now }).valid).toBe(true);
  });

  it('rejects a tampered body', () => {
    const headers = headersFor([secret]);
    expect(verifyWebhook(body.replace('order_created', 'order_cancelled'), headers, secret, { now })).toEqual({
      valid: false,
      reason: 'no signature matches a known secret',
    });
  });

  it('rejects a wrong secret', () => {
    expect(verifyWebhook(body, headersFor([secret]), newWebhookSecret(), { now }).valid).toBe(false);
  });

  it('rejects a stale timestamp and one from the future, beyond 5 minutes either way', () => {
    expect(verifyWebhook(body, headersFor([secret], ts - 301), secret, { now })).toMatchObject({ valid: false, reason: expect.stringContaining('tolerance') });
    expect(verifyWebhook(body, headersFor([secret], ts + 301), secret, { now }).valid).toBe(false);
    expect(verifyWebhook(body, headersFor([secret], ts - 299), secret, { now }).valid).toBe(true);
  });

  it('rejects a replayed signature whose timestamp was swapped, and missing headers', () => {
    const headers = { ...headersFor([secret]), 'webhook-timestamp': String(ts + 1) };
    expect(verifyWebhook(body, headers, secret, { now }).valid).toBe(false);
    const { 'webhook-id': _, ...noId } = headersFor([secret]);
    expect(verifyWebhook(body, noId, secret, { now }).valid).toBe(false);
  });

  it('reads headers from a fetch Headers object, and falls back to X-Client-Signature alone', () => {
    const { 'webhook-signature': _, ...onlyClient } = headersFor([secret]);
    expect(verifyWebhook(Buffer.from(body), new Headers(onlyClient), secret, { now }).valid).toBe(true);
  });
});
