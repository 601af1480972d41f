import { Type } from '@sinclair/typebox';
import { ADMIN_API_ROUTES } from './admin/api.js';
import { PANEL_PAGES, PANEL_ROUTE } from './admin/pages.js';
import { BATCH_ROUTE } from './batch.js';
import { DOCS_ROUTES } from './docs.js';
import { DOCUMENT_ROUTES } from './documents.js';
import { LOOKUP_ROUTES } from './lookups.js';
import { MCP_ROUTES } from './mcp/routes.js';
import { OPERATIONS_ROUTES } from './operations.js';
import type { Route } from './route.js';
import { ApiError, DocumentError } from './schemas/shapes.js';
import { WATCH_ROUTES } from './watches.js';
import { WORKSPACE_ROUTES } from './workspace/routes.js';

/**
 * Every route of Dossier's HTTP contract, in the order of the reference page (the panel's own pages
 * and assets, which it leaves out, last). Adding a route is adding one declaration to its resource's
 * file: the router, authentication and scope, the OpenAPI document, the tests' response checks and the
 * `route` label of metrics and logs follow from it.
 */
export const ROUTES: readonly Route[] = [
  ...LOOKUP_ROUTES,
  BATCH_ROUTE,
  ...WATCH_ROUTES,
  ...DOCUMENT_ROUTES,
  ...MCP_ROUTES,
  ...ADMIN_API_ROUTES,
  PANEL_ROUTE,
  ...OPERATIONS_ROUTES,
  ...DOCS_ROUTES,
  ...PANEL_PAGES,
  ...WORKSPACE_ROUTES,
];

/** The generic error bodies, for answers to paths no route declares (404) or methods it does not (405). */
export const FALLBACK_ERROR = Type.Union([ApiError, DocumentError]);
