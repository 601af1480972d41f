import { DossierError } from '../../lib/index.js';

/** The peer dependencies of the Koa adapter, as `npm install` names them. */
export const KOA_PACKAGES = ['koa', '@koa/router', 'koa-body', 'swagger-ui-dist', 'prom-client', 'pino'] as const;

/** What `dossier worker` takes: the log alone. */
export type ProcessLog = typeof import('../log/json-logger.js');

/**
 * Loads the Koa adapter for `dossier serve`. Koa, its two helpers, swagger-ui-dist (the /docs page),
 * prom-client (/metrics) and pino (the server's log) are optional peer dependencies (an application
 * that embeds only the library does not install them), so the other commands never load them.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the install command when one of them is missing.
 */
export function loadKoaAdapter(): Promise<typeof import('../koa/index.js')> {
  return loadPeers(() => import('../koa/index.js'), KOA_PACKAGES, "serve needs the Koa adapter's peer dependencies");
}

/**
 * Loads the log of `dossier worker`, which needs pino and none of the Koa adapter's other peers.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the install command when pino is missing.
 */
export function loadProcessLog(): Promise<ProcessLog> {
  return loadPeers(() => import('../log/json-logger.js'), ['pino'], 'worker needs pino for its log');
}

/** `load()`, or, when one of `packages` is not installed, the error that says which and what to run. */
async function loadPeers<T>(load: () => Promise<T>, packages: readonly string[], needs: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    // ERR_MODULE_NOT_FOUND from an import; MODULE_NOT_FOUND from the resolution of swagger-ui-dist's folder.
    const missing = packages.find((name) => message?.includes(`'${name}'`) || message?.includes(`'${name}/`));
    if ((code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') || missing === undefined) throw error;
    throw new DossierError(
      'ERR_CONFIG_INVALID',
      `${needs}, and ${missing} is not installed: run npm install ${packages.join(' ')}`,
      { cause: error },
    );
  }
}
