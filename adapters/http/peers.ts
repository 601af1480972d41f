import { createRequire } from 'node:module';
import { DossierError } from '../../lib/index.js';

const require = createRequire(import.meta.url);

/** The optional peer dependencies of every HTTP adapter: the /docs page's assets, and /metrics' registry. */
export const HTTP_PEERS = ['swagger-ui-dist', 'prom-client'] as const;

/**
 * Loads (or, for a path inside it, resolves) a peer dependency of the HTTP adapters, which an
 * application that embeds only the library does not install.
 * @throws DossierError `ERR_CONFIG_INVALID` naming it and the line to run, when it is not installed.
 */
export function requirePeer<T>(name: (typeof HTTP_PEERS)[number], path?: string): T {
  try {
    // Loaded by Node when the app runs, not by a bundler when it is built (see optional-peer.ts in lib/stores/shared).
    return (
      path === undefined
        ? require(/* webpackIgnore: true */ /* turbopackIgnore: true */ name)
        : require.resolve(/* webpackIgnore: true */ /* turbopackIgnore: true */ `${name}/${path}`)
    ) as T;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code !== 'MODULE_NOT_FOUND' || !message?.includes(`'${name}`)) throw error;
    throw new DossierError(
      'ERR_CONFIG_INVALID',
      `Dossier's HTTP adapters need ${name}, which is not installed: run npm install ${HTTP_PEERS.join(' ')}`,
      { cause: error },
    );
  }
}
