import { dossierTracingIncludes } from 'dossier/next';

/**
 * `output: 'standalone'`, as a Docker image is made: `next build` also writes .next/standalone, a server
 * with the files it needs from node_modules (`node .next/standalone/server.js`). Dossier is bundled with
 * the route; its optional peers (swagger-ui-dist for /docs, prom-client for /metrics, …) are loaded by Node
 * when the app runs, so the tracer is told which files they are. `next start` serves the same build.
 * @type {import('next').NextConfig}
 */
export default {
  output: 'standalone',
  outputFileTracingIncludes: { '/dossier/**': dossierTracingIncludes() },
};
