import type { KeyedMerchant } from '../../core/merchants/api-keys.js';
import type { WebEnv } from '../security-headers.js';

/** What the dashboard's middleware sets on a request: the CSRF token its forms carry, and who signed in. */
export type DashboardEnv = {
  Variables: WebEnv['Variables'] & {
    csrf: string;
    merchant?: KeyedMerchant;
    operator?: true;
  };
};
