import type { Config } from '../../core/config.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';

/** A cart's session workflow (`cart-<cartId>`) in the Temporal UI, where operators follow it. */
export function temporalWorkflowUrl(config: Pick<Config, 'temporalUiUrl' | 'temporal'>, cartId: string): string {
  return `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(cartWorkflowId(cartId))}`;
}
