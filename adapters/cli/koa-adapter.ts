import { DossierError } from '../../lib/index.js';

/** The peer dependencies of the Koa adapter, as `npm install` names them. */
export const KOA_PACKAGES = ['koa', '@koa/router', 'koa-body', 'swagger-ui-dist', 'prom-client', 'pino'] as const;

/** What `dossier serve` takes from the Koa adapter. */
export type KoaAdapter = typeof import('../koa/index.js');

/**
 * Loads the Koa adapter for `dossier serve`. Koa, its two helpers, swagger-ui-dist (the /docs page),
 * prom-client (/metrics) and pino (the server's log) are optional peer dependencies (an application that embeds only the library
 * does not install them), so the other commands never load them.
 * @throws DossierError `ERR_CONFIG_INVALID` naming the install command when one of them is missing.
 */
export async function loadKoaAdapter(): Promise<KoaAdapter> {
  try {
    return await import('../koa/index.js');
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    // ERR_MODULE_NOT_FOUND from an import; MODULE_NOT_FOUND from the resolution of swagger-ui-dist's folder.
    const missing = KOA_PACKAGES.find((name) => message?.includes(`'${name}'`) || message?.includes(`'${name}/`));
    if ((code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') || missing === undefined) throw error;
    throw new DossierError(
      'ERR_CONFIG_INVALID',
      `serve needs the Koa adapter's peer dependencies, and ${missing} is not installed: run npm install ${KOA_PACKAGES.join(' ')}`,
      { cause: error },
    );
  }
}
