/** A merchant's team member's role (docs/dashboard.md, the role table). */
export const MERCHANT_ROLES = ['owner', 'developer', 'support', 'analyst'] as const;
/** An operator's role: `operator_admin` also manages operators. */
export const OPERATOR_ROLES = ['operator', 'operator_admin'] as const;
export const ROLES = [...MERCHANT_ROLES, ...OPERATOR_ROLES] as const;

export type MerchantRole = (typeof MERCHANT_ROLES)[number];
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export type Role = (typeof ROLES)[number];

export const isMerchantRole = (role: string): role is MerchantRole => (MERCHANT_ROLES as readonly string[]).includes(role);
export const isOperatorRole = (role: string): role is OperatorRole => (OPERATOR_ROLES as readonly string[]).includes(role);
export const isRole = (role: string): role is Role => (ROLES as readonly string[]).includes(role);
