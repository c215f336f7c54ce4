/**
 * Where the sandbox helpers are served (docs/api.md, "Sandbox helpers"): api/app.ts mounts ./routes.ts
 * here in a sandbox deployment only, and each helper is declared with a full path below it
 * (./*-paths.ts). A later helper joins with its own routes module, composed in ./routes.ts.
 */
export const SANDBOX_MOUNT = '/v2/sandbox';
