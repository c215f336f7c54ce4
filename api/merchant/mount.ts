/**
 * Where the merchant API is served: api/app.ts mounts ./routes.ts here, and every merchant route is
 * declared with a full path below it (./*-paths.ts), which `serve` (api/route-declaration.ts) checks.
 */
export const MERCHANT_MOUNT = '/v2/merchant';
