export { cartSession } from './cart-session/workflow.js';
export { webhookDelivery } from './webhook-delivery/workflow.js';
export { purgeCardVault } from './card-vault-purge/workflow.js';
export { refundPayment } from './refund/workflow.js';
export { verifyMerchantDomains, recheckDomainVerifications } from './domain-verification/workflow.js';
export { removeSavedCards } from './saved-card-removal/workflow.js';
export { dispute } from './dispute/workflow.js';
export { lateOutcome } from './late-outcome/workflow.js';
export { refundFailure } from './refund-failure/workflow.js';
