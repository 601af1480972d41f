import { DossierError } from '../../lib/index.js';
import type { ProcessLog } from './process.js';

/** What `dossier serve` needs besides the library, as `npm install` names them: Koa, the HTTP adapters' peers, and the log. */
export const SERVE_PACKAGES = ['koa', 'swagger-ui-dist', 'prom-client', 'pino'] as const;

/**
 * Loads the Koa adapter and the server's lifecycle for `dossier serve`. Koa, swagger-ui-dist (the /docs
 * page), prom-client (/metrics) and pino (the server's log) are optional peer dependencies (an
 * application that embeds only the library does not install them), so the other commands never load them.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the install command when one of them is missing.
 */
export function loadServe(): Promise<{ koa: typeof import('../koa/index.js'); serve: (typeof import('./serve.js'))['serve'] }> {
  return loadPeers(
    async () => ({ koa: await import('../koa/index.js'), serve: (await import('./serve.js')).serve }),
    SERVE_PACKAGES,
    'serve needs the Koa adapter and its peer dependencies',
  );
}

/**
 * Loads the log of `dossier worker`, which needs pino and none of the HTTP adapters' peers.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the install command when pino is missing.
 */
export function loadProcessLog(): Promise<ProcessLog> {
  return loadPeers(() => import('../log/json-logger.js'), ['pino'], 'worker needs pino for its log');
}

/** What `dossier mcp` needs besides the library: the MCP SDK, the HTTP contract's peers, and the log. */
export const MCP_PACKAGES = ['@modelcontextprotocol/server', 'swagger-ui-dist', 'prom-client', 'pino'] as const;

/**
 * Loads the HTTP contract for `dossier mcp`, which serves its `/mcp` over stdio.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the install command when one of {@link MCP_PACKAGES} is missing.
 */
export function loadMcp(): Promise<typeof import('../http/index.js')> {
  return loadPeers(() => import('../http/index.js'), MCP_PACKAGES, 'mcp needs the MCP SDK and the HTTP contract');
}

/** `load()`, once each of `packages` is found; else the error that says which is missing and what to run. */
async function loadPeers<T>(load: () => Promise<T>, packages: readonly string[], needs: string): Promise<T> {
  for (const name of packages) {
    try {
      import.meta.resolve(name);
    } catch (error) {
      throw new DossierError(
        'ERR_CONFIG_INVALID',
        `${needs}, and ${name} is not installed: run npm install ${packages.join(' ')}`,
        {
          cause: error,
        },
      );
    }
  }
  return load();
}
