import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import { methodNotAllowed } from '../errors.js';
import { buildOpenApiDocument } from './openapi.js';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Served from our own origin, read once: the reference must not depend on a CDN or load its code
// from anyone else, and the CSP below forbids it anyway.
const ASSETS: Record<string, { type: string; body: string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: readFileSync(path.join(swaggerUiDir, 'swagger-ui.css'), 'utf8') },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(path.join(swaggerUiDir, 'swagger-ui-bundle.js'), 'utf8') },
  // An inline script would need 'unsafe-inline'; a file of our own does not.
  'init.js': {
    type: 'text/javascript; charset=utf-8',
    body: `window.addEventListener('load', () => {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true, defaultModelsExpandDepth: 2, validatorUrl: null });
});\n`,
  },
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hosted Checkout API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// Only our own origin; images may be data: URIs (the stylesheet's icons).
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `GET /openapi.json` (OpenAPI 3.1 from the zod schemas) and `GET /docs` (its rendered reference). */
export function docsRoutes(deps: { config: Config }) {
  const document = buildOpenApiDocument(deps.config);
  const app = new Hono();
  app.get('/openapi.json', (c) => c.json(document));
  app.all('/openapi.json', methodNotAllowed(['GET']));
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    return c.html(DOCS_PAGE);
  });
  app.all('/docs', methodNotAllowed(['GET']));
  app.get('/docs/:asset', async (c, next) => {
    const asset = ASSETS[c.req.param('asset')];
    if (!asset) return next();
    c.header('Content-Type', asset.type);
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(asset.body);
  });
  return app;
}
