import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { buildOpenApiDocument } from '../../api/docs/openapi.js';
import { loadConfig } from '../../core/config.js';

const config = loadConfig({ CHECKOUT_ENV: 'sandbox', DATABASE_URL: 'postgres://unused', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') });

describe('the OpenAPI document and the routes the API serves', () => {
  // `serve` takes a handler's method and path from its declaration; this catches the two ways left to
  // drift: a declaration listed in the document that no module serves, and an API route served without one.
  it('name the same operations under /v2/', () => {
    // Building the app opens nothing: the database and Temporal are reached per request.
    const app = createApiApp({ config, db: {} as never, temporal: { client: {} } as never, logger: pino({ level: 'silent' }) });
    const served = new Set(app.routes.filter((r) => r.path.startsWith('/v2/') && r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    const documented = Object.entries(buildOpenApiDocument(config).paths ?? {}).flatMap(([path, operations]) =>
      Object.keys(operations as object).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1').replace(/\/$/, '')}`),
    );
    expect([...served].sort()).toEqual(documented.sort());
  });
});
