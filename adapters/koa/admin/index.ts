import Router from '@koa/router';
import type { Dossier } from '../../../lib/index.js';
import { AdminAccess } from './access.js';
import { addAdminApiRoutes } from './api-routes.js';
import { addAdminOffPage, addAdminPages } from './page-routes.js';

/**
 * Adds the administration panel and its API (CONTRACT.md §5) to a router: with
 * `dossier.options.adminToken` set, `GET /admin` (the page), its sign-in and sign-out, a key's detail
 * view and `/admin/api/…`; without it, only a `/admin` page that says how to turn the panel on (the API
 * paths are then unknown, 404). Sign-outs and sign-in lock-outs are kept in the store.
 */
export function addAdminRoutes(router: Router, dossier: Dossier): void {
  const token = dossier.options.adminToken;
  if (token === undefined) {
    addAdminOffPage(router);
    return;
  }
  const access = new AdminAccess(token, dossier.adminSessions, dossier.options.clock);
  addAdminPages(router, dossier, access);
  addAdminApiRoutes(router, dossier, access);
}

/**
 * A router with only the administration panel and its API, for hosts that mount the panel apart from
 * the interfaces (behind their own access rules, under their own prefix). Mount it after
 * `errorMiddleware` so that unknown paths get JSON errors.
 */
export function createAdminRouter(dossier: Dossier): Router {
  const router = new Router();
  addAdminRoutes(router, dossier);
  return router;
}
