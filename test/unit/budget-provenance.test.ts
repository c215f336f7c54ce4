import { describe, expect, it } from 'vitest';
import { budgetProvenance } from '../../core/checkout/cart-provenance.js';

const plain = { createdWith: 'api_key' as const, paymentLinkId: null, retryOf: null, recoveredFrom: null };

describe('whose share of the code budget a session spends (issue 48, point 9)', () => {
  it('keeps a cart’s own provenance when nobody minted it from a URL', () => {
    expect(budgetProvenance(plain)).toBe('api_key');
    expect(budgetProvenance({ ...plain, createdWith: 'public' })).toBe('public');
  });

  it('counts every session minted from a payment link, a retry or a recovery as a stranger’s, whatever its createdWith', () => {
    for (const lineage of [{ paymentLinkId: 'pl_x' }, { retryOf: 'failed-cart' }, { recoveredFrom: 'abandoned-cart' }]) {
      expect(budgetProvenance({ ...plain, ...lineage }), JSON.stringify(lineage)).toBe('public');
    }
  });
});
