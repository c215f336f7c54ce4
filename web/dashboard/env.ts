import type { Environment } from '../../core/config.js';
import type { DashboardSession } from '../../core/people/sessions.js';
import type { WebEnv } from '../security-headers.js';

/** What the dashboard's middleware sets on a request: the CSRF token its forms carry, and who signed in (web/dashboard/guard.ts). */
export type DashboardEnv = {
  Variables: WebEnv['Variables'] & {
    csrf: string;
    session?: DashboardSession;
    merchant?: { platformUuid: string; environment: Environment };
    operator?: true;
  };
};
