import Koa from 'koa';
import type { Dossier } from '../../lib/index.js';
import { createDossierRouter } from './router.js';

/**
 * A Koa app serving all of Dossier's HTTP contract (see {@link createDossierRouter}): `listen` it, or
 * hand its `callback()` to a server of your own. Its `proxy` setting says whether the `X-Forwarded-*`
 * of a reverse proxy in front are believed.
 */
export function createKoaApp(dossier: Dossier): Koa {
  const app = new Koa();
  app.use(createDossierRouter(dossier).routes());
  return app;
}
