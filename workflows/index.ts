export { cartSession } from './cart-session.js';
export { webhookDelivery } from './webhook-delivery.js';
