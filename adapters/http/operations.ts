import { Type } from '@sinclair/typebox';
import { LOCKED_OUT } from './admin/api.js';
import { storeDown } from './lookups.js';
import { panelOf, type Route } from './route.js';
import { JSON_TYPE, type ResponseSpec, type RouteSpec } from './schemas/define.js';
import { apiError, Health, NotReady, Ready, type Readiness, ServiceIndex } from './schemas/shapes.js';
import { dossierVersion } from '../version.js';

// The server's own routes (docs/contract.md §7): `/`, `/healthz`, `/readyz`, `/metrics` (only with an admin
// token), `/openapi.json`. They need no key and count against nothing.

/** `/readyz` answers within 1 s (docs/contract.md §7): each probe gets this much of it. */
export const READY_PROBE_MS = 600;

/** What a route of the server itself declares, after its method, path and operationId. */
type OperationsRouteDetails = Pick<RouteSpec, 'summary' | 'params'> &
  Pick<Route, 'needsAdminToken' | 'handle'> & {
    /** Who may call it. @default 'none' */
    auth?: RouteSpec['auth'];
    /** All its answers, errors included. */
    answers: Record<number, ResponseSpec>;
  };

/** A route of the server itself: listed under Operations, open to anyone unless it says otherwise. */
export function operationsRoute(
  method: RouteSpec['method'],
  path: string,
  operationId: string,
  { answers, auth = 'none', ...details }: OperationsRouteDetails,
): Route {
  return { method, path, operationId, ...details, tag: 'Operations', auth, responses: answers };
}

/** The routes of the server itself, in the order of the reference page (the reference's own follow, in docs.ts). */
export const OPERATIONS_ROUTES: readonly Route[] = [
  operationsRoute('get', '/', 'index', {
    summary: 'What this server is; a browser is sent to /docs',
    answers: {
      200: { description: 'For clients that do not ask for HTML.', body: ServiceIndex },
      302: { description: 'For a browser (`Accept: text/html`): to /docs.', headers: { Location: true } },
    },
    handle(call) {
      // Negotiated, not a substring match: `text/html;q=0` refuses HTML, and a client that prefers JSON gets JSON.
      if (call.accepts('application/json', 'text/html') === 'text/html') {
        call.reply.redirect(`${call.request.prefix}/docs`, 302, true);
        return;
      }
      // The paths of the mount, as the document declares them, under its prefix (`/dossier/docs`).
      const { prefix } = call.request;
      call.reply.json({
        name: 'dossier',
        version: dossierVersion(),
        docs: `${prefix}/docs`,
        openapi: `${prefix}/openapi.json`,
      } satisfies ServiceIndex);
    },
  }),
  operationsRoute('get', '/healthz', 'health', {
    summary: 'Liveness: 200 while the process serves (no store call)',
    answers: { 200: { description: 'Serving.', body: Health } },
    handle(call) {
      call.reply.header('Cache-Control', 'no-store').json({ status: 'ok' });
    },
  }),
  operationsRoute('get', '/readyz', 'ready', {
    summary: 'Readiness: the store and the cache answer (within 1 s)',
    answers: {
      200: { description: 'Ready.', body: Ready },
      503: { description: 'The store or the cache did not answer in time.', body: NotReady },
    },
    async handle(call) {
      const { store, cache } = await call.dossier.probe(READY_PROBE_MS);
      const body: Readiness =
        store && cache
          ? { status: 'ready', store: 'up', cache: 'up' }
          : { status: 'unavailable', store: store ? 'up' : 'down', cache: cache ? 'up' : 'down' };
      call.reply.header('Cache-Control', 'no-store').json(body, store && cache ? 200 : 503);
    },
  }),
  operationsRoute('get', '/metrics', 'metrics', {
    summary: 'Prometheus metrics (Authorization: Bearer <DOSSIER_ADMIN_TOKEN>)',
    auth: 'admin',
    needsAdminToken: true,
    answers: {
      200: {
        description: 'Prometheus text format 0.0.4.',
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        body: Type.String(),
      },
      401: apiError('No admin token, or a wrong one.', ['missing_key', 'invalid_key'], { 'WWW-Authenticate': true }),
      404: apiError('Metrics are off (no DOSSIER_ADMIN_TOKEN).', ['not_found']),
      429: LOCKED_OUT,
      503: storeDown(),
    },
    async handle(call) {
      const { registry } = panelOf(call.mount).metrics;
      call.reply.header('Cache-Control', 'no-store').send(200, registry.contentType, await registry.metrics());
    },
  }),
  operationsRoute('get', '/openapi.json', 'openapi', {
    summary: 'This document (OpenAPI 3.1)',
    answers: {
      200: { description: 'The OpenAPI document.', body: Type.Object({ openapi: Type.String({ pattern: '^3\\.1\\.' }) }) },
    },
    handle(call) {
      call.reply.send(200, JSON_TYPE, call.mount.openApiText(call.request.prefix));
    },
  }),
];
