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
<link rel="stylesheet" href="docs/dossier.css">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/**
 * Starts Swagger UI on the document; no validator badge (it would call a server outside). Without deep
 * links: each operation's path would be a link inside the button that opens it, which screen readers
 * and keyboards cannot reach as one control.
 */
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: false,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  defaultModelsExpandDepth: 0,
});
`;

/**
 * Swagger UI's colours, darkened where its text is too faint to read (WCAG AA: 4.5:1 for text of this size,
 * as axe-core measures it): the method badges, links, the version badges, the parameter's "in", the
 * highlighter's one faint colour (set inline, hence matched by its value), the schemas' buttons and
 * labels, and the examples, which wrap instead of scrolling (a scrolling box a keyboard cannot reach).
 */
const STYLE = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1760b0; }
.swagger-ui .opblock.opblock-get, .swagger-ui .opblock.opblock-get .opblock-summary { border-color: #1760b0; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #137547; }
.swagger-ui .opblock.opblock-post, .swagger-ui .opblock.opblock-post .opblock-summary { border-color: #137547; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a4f00; }
.swagger-ui .opblock.opblock-put, .swagger-ui .opblock.opblock-put .opblock-summary { border-color: #9a4f00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0d6b5c; }
.swagger-ui .opblock.opblock-patch, .swagger-ui .opblock.opblock-patch .opblock-summary { border-color: #0d6b5c; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b9232b; }
.swagger-ui .opblock.opblock-delete, .swagger-ui .opblock.opblock-delete .opblock-summary { border-color: #b9232b; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.nostyle, .swagger-ui .renderedMarkdown a { color: #1760b0; }
.swagger-ui .info .title small { background: #555d6b; }
.swagger-ui .info .title small.version-stamp { background-color: #3d6b00; }
.swagger-ui .btn.authorize { border-color: #137547; color: #137547; }
.swagger-ui .btn.authorize svg { fill: #137547; }
.swagger-ui .parameter__in, .swagger-ui .parameter__type, .swagger-ui .prop-format { color: #4a4f59; }
.swagger-ui .renderedMarkdown code, .swagger-ui .markdown code { color: #6a0dbd; background: rgba(0, 0, 0, 0.04); }
.swagger-ui .highlight-code > .microlight { max-height: none !important; }
.swagger-ui .microlight > code { white-space: pre-wrap !important; overflow-wrap: anywhere; }
.swagger-ui .microlight span[style*="rgb(211, 99, 99)"] { color: #f29b9b !important; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a4f59; }
.swagger-ui .json-schema-2020-12-keyword__name--extension, .swagger-ui .json-schema-2020-12-keyword__value--extension,
.swagger-ui .json-schema-2020-12-json-viewer-extension-keyword .json-schema-2020-12-json-viewer__name,
.swagger-ui .json-schema-2020-12-json-viewer-extension-keyword .json-schema-2020-12-json-viewer__value { color: #5e5e5e; }
.swagger-ui .json-schema-2020-12__constraint--string { background-color: #8a5a00; }
.swagger-ui .json-schema-2020-12-keyword__value--warning { color: #c00000; }
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
      asset: Type.String({ description: 'swagger-ui.css, swagger-ui-bundle.js, dossier.css, init.js or favicon-32x32.png' }),
    }),
    answers: {
      200: {
        description: "The asset, from the swagger-ui-dist package (or the page's own init.js and dossier.css).",
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
      if (name === 'dossier.css') {
        call.reply.send(200, 'text/css; charset=utf-8', STYLE);
        return;
      }
      const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (type !== undefined) call.reply.send(200, type, asset(name)); // else a 404, with these headers
    },
  }),
];
