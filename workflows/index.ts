export { cartSession } from './cart-session/workflow.js';
export { webhookDelivery } from './webhook-delivery/workflow.js';
