/** Where the sandbox's helpers are served: api/app.ts mounts each ./*-routes.ts here, declared with full paths below it (./*-paths.ts). */
export const SANDBOX_MOUNT = '/v2/sandbox';
