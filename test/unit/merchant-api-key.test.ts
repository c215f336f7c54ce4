import { describe, expect, it } from 'vitest';
import { apiKeyPrefix, newApiKey } from '../../core/merchants/api-keys.js';

describe('a merchant API key’s display prefix', () => {
  it('is the environment and 4 random characters, however many underscores the random part holds', () => {
    const key = `sk_sandbox_${'K4_3J6gamBiPsEZmIqZAsGxq87fqW7QU_AbQd_x_y__'.slice(0, 43)}`;
    expect(apiKeyPrefix(key)).toBe('sk_sandbox_K4_3');
    expect(apiKeyPrefix(`sk_production_${'_'.repeat(43)}`)).toBe('sk_production_____');
    for (let i = 0; i < 200; i++) {
      const fresh = newApiKey('sandbox');
      expect(apiKeyPrefix(fresh)).toBe(fresh.slice(0, 'sk_sandbox_'.length + 4));
    }
  });
});
