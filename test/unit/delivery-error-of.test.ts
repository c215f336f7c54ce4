import { describe, expect, it } from 'vitest';
import { deliveryErrorOf } from '../../core/webhooks/event-history.js';

/**
 * Issue 48, point 8: attempts stored before unreachable_host said `dns` or `blocked_address`, which
 * told a merchant whether one of our internal names resolves. Read back, both are the one category.
 */
describe('deliveryErrorOf: a stored attempt as a merchant is told it', () => {
  it.each(['dns', 'blocked_address', 'unreachable_host'])('reads %s as unreachable_host', (stored) => {
    expect(deliveryErrorOf(stored, null)).toBe('unreachable_host');
  });

  it('keeps the other categories, and an answer is its status', () => {
    expect(deliveryErrorOf('timeout', null)).toBe('timeout');
    expect(deliveryErrorOf('http_503', 503)).toBe('http_status');
    expect(deliveryErrorOf(null, 200)).toBeNull();
  });
});
