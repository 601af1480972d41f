import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { koaBody } from 'koa-body';
import { type DocumentPage, type Dossier, DossierValidationError } from '../../lib/index.js';
import { authenticate } from './auth.js';
import { acceptsEventStream, respondWithEventStream } from './document-stream.js';
import { MAX_BODY_BYTES } from './request-body.js';
import type { DocumentList } from './schemas/shapes.js';

const LIST_PATH = '/api/v1/documents';

/** The filters carried into links, in this order (then `page`). */
const LINK_ORDER = ['search', 'search_by', 'template_id', 'favorite', 'sort_by', 'sort', 'per_page'];

const parseBody = koaBody({
  json: true,
  urlencoded: true,
  text: false,
  multipart: false,
  jsonTypes: ['application/json'],
  urlencodedTypes: ['application/x-www-form-urlencoded'],
  jsonLimit: MAX_BODY_BYTES,
  formLimit: MAX_BODY_BYTES,
  onError(error) {
    const status = (error as { status?: unknown }).status;
    if (status === 413 || status === 415) throw error;
    throw unreadableBody();
  },
});

/**
 * Interface B (CONTRACT.md §3): `/api/v1/documents` and `/api/v1/templates`. Every route first checks
 * the key and its `documents` scope, then reads the body of a write (form-encoded or JSON, at most
 * {@link MAX_BODY_BYTES}), then calls the document service. These requests do not count against the
 * lookup quota. A create that accepts `text/event-stream` is answered as Server-Sent Events
 * (CONTRACT.md §9, see {@link respondWithEventStream}).
 */
export function addDocumentRoutes(router: Router, dossier: Dossier): void {
  const documents = dossier.documents;
  const owner = async (ctx: Context): Promise<string> => (await authenticate(ctx, dossier, 'documents')).owner;

  router.get(LIST_PATH, async (ctx) => {
    const page = await documents.list(await owner(ctx), ctx.query);
    // Laravel builds absolute links from the request's host; without one, links are paths.
    // The path as requested, so that links keep the prefix of a router mounted in a host's app.
    const path = ctx.path.replace(/\/+$/, '');
    ctx.body = listBody(page, ctx.host ? `${ctx.protocol}://${ctx.host}${path}` : path);
  });
  router.post(LIST_PATH, documentCreator(dossier));
  const read = documentReader(dossier);
  router.get(`${LIST_PATH}/:id`, (ctx) => read(ctx, ctx.params.id ?? ''));
  const update = async (ctx: Context): Promise<void> => {
    const who = await owner(ctx);
    const input = await readBody(ctx);
    ctx.body = { data: await documents.update(who, ctx.params.id ?? '', input), status: 200 };
  };
  router.put(`${LIST_PATH}/:id`, update);
  router.patch(`${LIST_PATH}/:id`, update);
  router.delete(`${LIST_PATH}/:id`, async (ctx) => {
    const id = await documents.delete(await owner(ctx), ctx.params.id ?? '');
    ctx.body = { id, object: 'document', deleted: true, status: 200 };
  });
  router.get('/api/v1/templates', async (ctx) => {
    await authenticate(ctx, dossier, 'documents');
    ctx.body = { data: documents.templates().map(({ id, name, custom }) => ({ id, name, custom })), status: 200 };
  });
}

/** `GET /api/v1/documents/{id}`: the owner's document `id`. */
function documentReader(dossier: Dossier): (ctx: Context, id: string) => Promise<void> {
  return async (ctx, id) => {
    const { owner } = await authenticate(ctx, dossier, 'documents');
    ctx.body = { data: await dossier.documents.get(owner, id), status: 200 };
  };
}

/** `POST /api/v1/documents`: a new document, answered whole or as Server-Sent Events. */
function documentCreator(dossier: Dossier): (ctx: Context) => Promise<void> {
  const documents = dossier.documents;
  return async (ctx) => {
    const who = (await authenticate(ctx, dossier, 'documents')).owner;
    const input = await readBody(ctx);
    if (acceptsEventStream(ctx.get('Accept'))) {
      const start = (signal: AbortSignal) => documents.createStream(who, input, signal);
      await respondWithEventStream(ctx, start, dossier.options.logger);
      return;
    }
    const document = await documents.create(who, input);
    ctx.status = 201;
    ctx.body = { data: document, status: 201 };
  };
}

/** `/api/v1/documents/` and a plain number: the one spelling of a document's path that the fast path takes. */
const DOCUMENT_PATH = /^\/api\/v1\/documents\/([0-9]{1,16})$/;

/**
 * `GET /api/v1/documents/{id}` with a plain numeric id, and `POST /api/v1/documents`, straight to the
 * handler the router would call, as the lookups' fast path does: the router's dispatch (two routers'
 * here) is a large share of a read by id. Any other path, spelling or method goes on to the routers.
 */
export function documentFastPath(dossier: Dossier): Middleware {
  const read = documentReader(dossier);
  const create = documentCreator(dossier);
  return (ctx, next) => {
    if (ctx.method === 'POST') return ctx.path === LIST_PATH ? create(ctx) : next();
    const match = ctx.method === 'GET' ? DOCUMENT_PATH.exec(ctx.path) : null;
    return match === null ? next() : read(ctx, match[1]!);
  };
}

/**
 * The fields of a write: form-encoded or JSON; no body at all counts as an empty form.
 * @throws an HTTP error 415 for another content type, 413 above {@link MAX_BODY_BYTES};
 *   DossierValidationError (422) for a body that cannot be parsed or is not an object.
 */
async function readBody(ctx: Context): Promise<Record<string, unknown>> {
  const length = ctx.request.length;
  const empty = ctx.get('Transfer-Encoding') === '' && (length === undefined || length === 0);
  if (empty && ctx.get('Content-Type') === '') return {};
  if (!ctx.request.is('application/x-www-form-urlencoded', 'application/json')) {
    ctx.throw(415, 'The request body must be application/x-www-form-urlencoded or application/json.');
  }
  await parseBody(ctx, (async () => {}) as Next);
  const body: unknown = ctx.request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw unreadableBody();
  return body as Record<string, unknown>;
}

/** A body that is not a form or a JSON object of fields is a validation error like any other (422). */
function unreadableBody(): DossierValidationError {
  return new DossierValidationError({ body: ['The request body must be form fields or a JSON object of fields.'] });
}

/** The Laravel-shaped envelope of a page, with absolute links that carry the filters. */
function listBody(page: DocumentPage, path: string): DocumentList {
  const link = (pageNumber: number): string => {
    const params = new URLSearchParams();
    for (const name of LINK_ORDER) {
      const value = page.filters[name];
      if (value !== undefined) params.set(name, value);
    }
    params.set('page', String(pageNumber));
    return `${path}?${params.toString()}`;
  };
  return {
    data: page.data,
    links: {
      first: link(1),
      last: link(page.last_page),
      prev: page.current_page > 1 ? link(page.current_page - 1) : null,
      next: page.current_page < page.last_page ? link(page.current_page + 1) : null,
    },
    meta: {
      current_page: page.current_page,
      from: page.from,
      last_page: page.last_page,
      path,
      per_page: page.per_page,
      to: page.to,
      total: page.total,
    },
    status: 200,
  };
}
