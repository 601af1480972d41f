import type { Server } from 'node:http';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Dossier } from '../../lib/index.js';
import { createHttpHandler, nodeRequest, writeNodeResponse, type HttpHandler, type HttpOptions } from '../http/index.js';

/** The options of {@link dossierPlugin}: the Dossier to serve; Fastify's own `prefix` says where. */
export interface DossierPluginOptions extends HttpOptions {
  /** The Dossier the plugin serves. */
  dossier: Dossier;
}

/**
 * All of Dossier's HTTP contract as a Fastify plugin (Fastify 5): `await app.register(dossierPlugin,
 * { dossier })`, or under a prefix, `{ dossier, prefix: '/dossier' }`. Both interfaces, batch, watches,
 * the administration panel and its API (with `adminToken`), /docs, /openapi.json, /metrics, /healthz,
 * /readyz, `/`, the `X-Request-Id`, the log line of each request, and JSON errors for unknown paths and
 * methods: every path under the prefix that the app does not route itself.
 *
 * Its routes and the handler that answers them stay inside levels of their own under the prefix (two
 * encapsulated plugins the plugin registers where the app registers it), and Dossier reads its request
 * bodies itself, before Fastify's content-type parsers would, so that nothing of it leaks into the app's
 * other routes.
 * @throws DossierError `ERR_CONFIG_INVALID` when a peer dependency is not installed (see createHttpHandler)
 */
export const dossierPlugin: FastifyPluginAsync<DossierPluginOptions & { prefix?: string }> = async (
  fastify,
  { dossier, prefix: at, ...options },
) => {
  const http = createHttpHandler(dossier, options);
  // Fastify's own, once the routes' level has it.
  let prefix = '';
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const target = request.raw.url ?? request.url;
    // Fastify matched the prefix on the decoded path (`/%64ossier` is `/dossier` to it); the other mounts
    // match it as sent, so what does not start with it literally is the app's, as any unknown path is.
    if (http.owns(nodeRequest(request.raw, reply.raw, target, prefix))) return answerWith(http, prefix, request, reply);
    reply.callNotFound();
    return reply;
  };
  // The routes, on a level whose not-found handler stays the app's (for `reply.callNotFound()`).
  await fastify.register(
    async (routes) => {
      prefix = routes.prefix;
      MOUNTS.set(fastify.server, [...(MOUNTS.get(fastify.server) ?? []), { http, prefix }]);
      for (const url of ['/', '/*']) {
        // Answered in onRequest, before Fastify reads a body (or refuses a content type of its own accord).
        routes.route({ method: routes.supportedMethods, url, exposeHeadRoute: false, onRequest: answer, handler: answer });
      }
    },
    { prefix: at },
  );
  // Methods Fastify does not route (PROPFIND, …) end in a not-found handler, to be answered 501 as the
  // contract says: a level of its own at the prefix holds it, for the prefix itself and every path below.
  await fastify.register(
    async (unrouted) => {
      unrouted.setNotFoundHandler(answer);
    },
    { prefix: at || '/' },
  );
};
// Registered in the context of the app that registers it (as fastify-plugin marks a plugin), so that
// the two levels above sit side by side at the prefix the app gives.
Object.assign(dossierPlugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'dossier' });

/** The Dossiers registered on each server, and where: for {@link answerFrameworkError}. */
const MOUNTS = new WeakMap<object, { http: HttpHandler; prefix: string }[]>();

/** Answers a request with Dossier's contract, the target as the client sent it. */
async function answerWith(
  http: HttpHandler,
  prefix: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const response = await http.handle(nodeRequest(request.raw, reply.raw, request.raw.url ?? request.url, prefix));
  if (response.stream !== null) {
    reply.hijack();
    await writeNodeResponse(reply.raw, response);
    return reply;
  }
  reply.code(response.status);
  for (const [name, value] of response.headers()) reply.header(name, value);
  return reply.send(response.body === null ? undefined : Buffer.from(response.body));
}

/**
 * Fastify's `frameworkErrors` option: a request its router refuses before any plugin sees it (a path
 * with a malformed escape, `/%zz`, FST_ERR_BAD_URL) is answered by the Dossier registered on the app
 * whose prefix holds it, as every other mount answers it (a JSON 404, with `X-Request-Id`); any other
 * gets Fastify's own answer. `Fastify({ frameworkErrors: answerFrameworkError })`.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const target = request.raw.url ?? request.url;
  const mount = (MOUNTS.get(request.server.server as Server) ?? []).find(({ http, prefix }) =>
    http.owns(nodeRequest(request.raw, reply.raw, target, prefix)),
  );
  if (mount === undefined) {
    void reply.code(error.statusCode ?? 400).send(error);
    return;
  }
  void answerWith(mount.http, mount.prefix, request, reply);
}
