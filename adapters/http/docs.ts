import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { operationsRoute } from './operations.js';
import { requirePeer } from './peers.js';
import type { Route } from './route.js';
import { apiError } from './schemas/shapes.js';

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

let assetDir: string | undefined;

/**
 * Finds swagger-ui-dist's files. Called when a mount is made: swagger-ui-dist is a peer dependency, so
 * a missing one stops the app at start-up with the line to run, not at the first visit to /docs.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the line to run when swagger-ui-dist is not installed.
 */
export function findDocsAssets(): string {
  return (assetDir ??= dirname(requirePeer<string>('swagger-ui-dist', 'package.json')));
}

const cache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let content = cache.get(name);
  if (content === undefined) {
    content = readFileSync(join(findDocsAssets(), name));
    cache.set(name, content);
  }
  return content;
}

/**
 * `GET /docs`: the reference page, Swagger UI rendering `/openapi.json`, with every asset served from
 * the swagger-ui-dist package here (nothing is fetched from outside), under {@link DOCS_CSP}.
 */
export const DOCS_ROUTES: readonly Route[] = [
  operationsRoute('get', '/docs', 'docs', {
    summary: 'The reference page rendered from this document',
    answers: {
      200: { description: 'HTML; every asset is served from here.', contentType: 'text/html', body: Type.String() },
      302: { description: "From /docs/ to /docs, where the page's relative links point.", headers: { Location: true } },
    },
    handle(call) {
      // The page's links are relative to /docs: at /docs/ they would point one folder too deep.
      if (call.path.endsWith('/')) {
        call.reply.redirect(call.path.replace(/\/+$/, ''), 302, call.accepts('text/html') !== undefined);
        return;
      }
      call.reply.header('Content-Security-Policy', DOCS_CSP);
      call.reply.header('X-Content-Type-Options', 'nosniff');
      call.reply.send(200, 'text/html; charset=utf-8', PAGE);
    },
  }),
  operationsRoute('get', '/docs/:asset', 'docsAsset', {
    summary: 'An asset of the reference page',
    params: Type.Object({
      asset: Type.String({ description: 'swagger-ui.css, swagger-ui-bundle.js, init.js or favicon-32x32.png' }),
    }),
    answers: {
      200: {
        description: "The asset, from the swagger-ui-dist package (or the page's own init.js).",
        contentType: 'text/javascript; charset=utf-8',
        body: Type.String(),
        alternatives: { 'text/css; charset=utf-8': Type.String(), 'image/png': Type.String({ contentEncoding: 'binary' }) },
      },
      404: apiError('No such asset.', ['not_found']),
    },
    handle(call) {
      const name = call.params.asset ?? '';
      call.reply.header('X-Content-Type-Options', 'nosniff');
      call.reply.header('Cache-Control', 'public, max-age=3600');
      if (name === 'init.js') {
        call.reply.send(200, 'text/javascript; charset=utf-8', INIT);
        return;
      }
      const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (type !== undefined) call.reply.send(200, type, asset(name)); // else a 404, with these headers
    },
  }),
];
