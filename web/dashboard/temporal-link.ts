import type { Config } from '../../core/config.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { TEMPORAL_UI_PATH } from './temporal-ui.js';

/**
 * A cart's session workflow (`cart-<cartId>`) in the Temporal UI, where operators follow it: the UI
 * the dashboard serves (TEMPORAL_UI_UPSTREAM), where it decodes with the operator's session, or else
 * TEMPORAL_UI_URL.
 */
export function temporalWorkflowUrl(config: Pick<Config, 'temporalUiUrl' | 'temporalUiUpstream' | 'temporal'>, cartId: string): string {
  // A path: the dashboard's own origin, whatever address the operator reached it by.
  const ui = config.temporalUiUpstream ? TEMPORAL_UI_PATH : config.temporalUiUrl;
  return `${ui}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(cartWorkflowId(cartId))}`;
}
