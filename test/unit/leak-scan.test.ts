import { describe, expect, it } from 'vitest';
import { findLeaks } from '../support/leak-scan.js';

describe('the leak scan the security tests rely on', () => {
  it('finds a Luhn-valid card number whole, grouped, or inside a JSON log line', () => {
    expect(findLeaks('logs', 'pan 4242424242424242 end')).toEqual(['logs: card number']);
    expect(findLeaks('logs', 'pan 4242 4242 4242 4242 end')).toEqual(['logs: card number']);
    expect(findLeaks('logs', '{"number":"5555555555554444"}')).toEqual(['logs: card number']);
  });

  it('ignores digit runs that fail Luhn, timestamps, and ids with digits inside', () => {
    expect(findLeaks('logs', '4242424242424241 1795436517158 req_4242424242424242')).toEqual([]);
  });

  it('sets aside only the randomness seed Temporal logs with a workflow activation', () => {
    // 4242424242424242428 is Luhn-valid and would read as a 19-digit card number anywhere else.
    expect(findLeaks('logs', '{"randomnessSeed":"4242424242424242428","identity":"1@vm"}')).toEqual([]);
    expect(findLeaks('logs', '{"seed":"4242424242424242428"}')).toEqual(['logs: card number']);
  });
});
