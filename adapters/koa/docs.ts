import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';

/**
 * The `Content-Security-Policy` of the reference page: its scripts, styles and the document come from
 * this server only. Swagger UI sets inline `style` attributes and uses `data:` images for its icons.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Links are relative, so that the page works wherever the app is mounted. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dossier API reference</title>
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/** Starts Swagger UI on the document; no validator badge (it would call a server outside). */
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  defaultModelsExpandDepth: 0,
});
`;

/** The assets of swagger-ui-dist that the page uses, and their types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Found when the adapter loads: swagger-ui-dist is one of its peer dependencies, so a missing one stops
// `dossier serve` at start-up with the line to run, not the first visit to /docs.
const ASSET_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let content = cache.get(name);
  if (content === undefined) {
    content = readFileSync(join(ASSET_DIR, name));
    cache.set(name, content);
  }
  return content;
}

/**
 * `GET /docs`: the reference page, Swagger UI rendering `/openapi.json`, with every asset served from
 * the swagger-ui-dist package here (nothing is fetched from outside), under {@link DOCS_CSP}.
 */
export function addDocsRoutes(router: Router): void {
  router.get('/docs', (ctx) => {
    // The page's links are relative to /docs: at /docs/ they would point one folder too deep.
    if (ctx.path.endsWith('/')) {
      ctx.redirect(ctx.path.replace(/\/+$/, ''));
      return;
    }
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/:asset', (ctx) => {
    const name = ctx.params.asset ?? '';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    if (name === 'init.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = INIT;
      return;
    }
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) return; // 404 by the error middleware
    ctx.type = type;
    ctx.body = asset(name);
  });
}
