import type { Config } from '../../core/config.js';
import { signedTokens } from '../../core/signed-token.js';
import { DASHBOARD_PATH } from './session.js';

const SIGN_IN_LINK_LIFETIME_MS = 10 * 60 * 1000;

/**
 * The CLI's sign-in link (`dashboard-link`): a signed token of its own purpose, good for ten minutes,
 * for one merchant through its current API key (so it dies with the key), signing in as owner.
 */
export function dashboardSignInLinks(config: Pick<Config, 'keyring' | 'checkoutBaseUrl'>) {
  const links = signedTokens(config.keyring.deriveKey('dashboard-sign-in-link/v1'), SIGN_IN_LINK_LIFETIME_MS);
  return {
    /** A link for the CLI to print. */
    issue(platformUuid: string, keyId: string): { url: string; expiresAt: string } {
      const token = links.issue([platformUuid, keyId]);
      const expiresAt = new Date(links.verify(token)!.expiresAt).toISOString();
      return { url: `${config.checkoutBaseUrl}${DASHBOARD_PATH}/link?token=${token}`, expiresAt };
    },

    read(token: string | undefined): { platformUuid: string; keyId: string } | undefined {
      const link = links.verify(token);
      if (link?.fields.length !== 2) return undefined;
      return { platformUuid: link.fields[0]!, keyId: link.fields[1]! };
    },
  };
}
