export { cartSession } from './cart-session.js';
