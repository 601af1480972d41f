import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Dossier } from '../../lib/index.js';
import { createHttpHandler, mountPrefix, nodeRequest, writeNodeResponse, type HttpOptions } from '../http/index.js';

/** How Dossier is mounted in an Express app. */
export interface ExpressOptions extends HttpOptions {
  /**
   * Where Dossier's paths are, below where the router is used (`/dossier`): it answers under it and
   * passes every other path on. `app.use('/dossier', router)` does the same. @default ''
   */
  prefix?: string;
}

/**
 * All of Dossier's HTTP contract as Express middleware (Express 4 and 5):
 * `app.use(createDossierRouter(dossier))`, or under a path of the app's, `app.use('/dossier', …)`. Both
 * interfaces, batch, watches, the administration panel and its API (with `adminToken`), /docs,
 * /openapi.json, /metrics, /healthz, /readyz, `/`, the `X-Request-Id`, the log line of each request,
 * and JSON errors for unknown paths and methods. Use it after your own routes and before any body
 * parser of the app's (it reads its bodies itself): every path that reaches it under its mount is answered.
 * @throws DossierError `ERR_CONFIG_INVALID` when a peer dependency is not installed (see createHttpHandler)
 */
export function createDossierRouter(dossier: Dossier, options: ExpressOptions = {}): RequestHandler {
  const http = createHttpHandler(dossier, options);
  const prefix = mountPrefix(options.prefix);
  return (req: Request, res: Response, next: NextFunction): void => {
    const request = nodeRequest(req, res, req.originalUrl, req.baseUrl + prefix);
    if (!http.owns(request)) return next();
    http.handle(request).then((response) => writeNodeResponse(res, response), next);
  };
}
