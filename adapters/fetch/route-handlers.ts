import type { Dossier } from '../../lib/index.js';
import { createFetchHandler, type FetchHandler, type FetchOptions } from './handler.js';

/** How Dossier is mounted as the route handlers of a framework (Next.js's App Router). */
export interface RouteHandlersOptions extends FetchOptions {
  /**
   * The address of the client that sent `request` (the panel's sign-in lock-out counts failures per
   * address), for a platform that says it in a header a client cannot forge. A route handler is given
   * no connection: without this, and without `trustProxy` behind a reverse proxy that adds
   * `X-Forwarded-For`, every client shares one address, and five wrong tokens lock everyone out for a while.
   * @default none
   */
  clientAddress?: (request: Request) => string | undefined;
  /**
   * Names the Dossier kept across reloads of the module (`next dev` evaluates a route's module again on
   * each change): one Dossier a name, for the life of the process. @default the prefix
   */
  name?: string;
}

/** A route handler: a WHATWG `Request` in, a `Response` out. */
export type RouteHandler = (request: Request) => Promise<Response>;

/** One {@link RouteHandler} a method, as a route module exports them. */
export interface RouteHandlers {
  GET: RouteHandler;
  HEAD: RouteHandler;
  POST: RouteHandler;
  PUT: RouteHandler;
  PATCH: RouteHandler;
  DELETE: RouteHandler;
  OPTIONS: RouteHandler;
}

/** The mounts made in this process, by name: on `globalThis`, which a module's reload keeps. */
const MOUNTS = Symbol.for('dossier.routeHandlers');
type Mounts = Map<string, FetchHandler>;

/**
 * Dossier's HTTP contract as route handlers, typed as a framework checks them:
 * `export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = createRouteHandlers(() => createDossier(), { prefix: '/dossier' })`
 * in `app/dossier/[[...path]]/route.ts`. `create` runs at the first request, not when the module loads:
 * `next build` loads route modules without opening a store, and a module reloaded by `next dev` finds
 * the Dossier made before (see {@link RouteHandlersOptions.name}).
 * A failure of `create` or of the mount (a missing peer dependency, `ERR_CONFIG_INVALID`) fails that
 * request, and the next one tries again.
 */
export function createRouteHandlers(create: () => Dossier, options: RouteHandlersOptions = {}): RouteHandlers {
  const mounts = ((globalThis as { [MOUNTS]?: Mounts })[MOUNTS] ??= new Map());
  const name = options.name ?? options.prefix ?? '';
  const mounted = (): FetchHandler => {
    const made = mounts.get(name);
    if (made !== undefined) return made;
    const dossier = create();
    try {
      const handle = createFetchHandler(dossier, options);
      mounts.set(name, handle);
      return handle;
    } catch (error) {
      void dossier.close();
      throw error;
    }
  };
  const route: RouteHandler = async (request) => mounted()(request, { address: options.clientAddress?.(request) });
  return { GET: route, HEAD: route, POST: route, PUT: route, PATCH: route, DELETE: route, OPTIONS: route };
}
