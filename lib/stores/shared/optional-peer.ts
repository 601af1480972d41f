import { createRequire } from 'node:module';
import { DossierError } from '../../errors.js';

const require = createRequire(import.meta.url);

/**
 * Loads the driver of a store that not every embedder uses: an optional peer dependency, installed by
 * the application that picks that store (keyv's model), so that the library alone stays small. Loaded
 * on demand, when a store URL names it, and synchronously, since `createDossier` is.
 * @param name the package, as `npm install` names it.
 * @param use what needs it, for the message (`A redis:// store`).
 * @throws DossierError `ERR_CONFIG_INVALID` naming the `npm install` line to run when it is not installed.
 */
export function loadOptionalPeer<T>(name: string, use: string): T {
  try {
    // The comment keeps a bundler (Turbopack, webpack) from resolving it when the app is built: the peer is
    // loaded by Node when the app runs, resolved from this file (import.meta.url), and missing peers are
    // the message below, not a failed build. (Bundled, a require of a name it cannot see would always throw.)
    return require(/* webpackIgnore: true */ /* turbopackIgnore: true */ name) as T;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code !== 'MODULE_NOT_FOUND' || !message?.includes(`'${name}'`)) throw error;
    throw new DossierError('ERR_CONFIG_INVALID', `${use} needs ${name}, which is not installed: run npm install ${name}`, {
      cause: error,
    });
  }
}
