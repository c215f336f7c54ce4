import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../core/crypto.js';
import { dashboardSignInLinks } from '../../web/dashboard/sign-in-link.js';

const keyring = createKeyring([{ id: 'k1', key: randomBytes(32) }]);
const merchant = { platformUuid: '0b8f4c1e-3a8e-4c55-9d0c-5a1f2e3d4c5b', keyId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' };

describe("the CLI's dashboard sign-in links", () => {
  it('read back as the merchant and key they were made for, on the dashboard, for ten minutes', () => {
    const links = dashboardSignInLinks({ keyring, checkoutBaseUrl: 'http://localhost:3001' });
    const issued = links.issue(merchant.platformUuid, merchant.keyId);
    const link = new URL(issued.url);
    expect(link.pathname).toBe('/dashboard/link');
    expect(Date.parse(issued.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(issued.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(links.read(link.searchParams.get('token')!)).toEqual(merchant);
  });

  it('are refused when tampered with or made under another key', () => {
    const links = dashboardSignInLinks({ keyring, checkoutBaseUrl: 'http://localhost:3001' });
    const token = new URL(links.issue(merchant.platformUuid, merchant.keyId).url).searchParams.get('token')!;
    expect(links.read(token.replace(merchant.platformUuid, '1b8f4c1e-3a8e-4c55-9d0c-5a1f2e3d4c5b'))).toBeUndefined();
    const other = dashboardSignInLinks({ keyring: createKeyring([{ id: 'k2', key: randomBytes(32) }]), checkoutBaseUrl: 'http://localhost:3001' });
    expect(other.read(token)).toBeUndefined();
    expect(links.read(undefined)).toBeUndefined();
  });
});
