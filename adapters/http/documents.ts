import { parse as parseQuery } from 'node:querystring';
import { Type } from '@sinclair/typebox';
import { readFields } from './body.js';
import { documentChangesOf, documentIdOf, listingOf, newDocumentOf, wireDocument, wireDocumentList } from './document-shapes.js';
import { acceptsEventStream, eventStream } from './document-stream.js';
import { keyOf, routeGroup, type Call } from './route.js';
import type { HeaderName, ResponseSpec } from './schemas/define.js';
import { Document, DocumentDeleted, DocumentError, DocumentList, Envelope, TemplateList } from './schemas/shapes.js';
import { DocumentCreate, DocumentListQuery, DocumentUpdate } from './schemas/documents.js';

// Interface B (docs/contract.md §3, §9): `/api/v1/documents` and `/api/v1/templates`. Every route first
// checks the key and its `documents` scope (the mount does, as the group declares), then reads the body
// of a write (form-encoded or JSON, at most 64 KiB), then calls the document service. These requests
// do not count against the lookup quota. A create that accepts `text/event-stream` is answered as
// Server-Sent Events (docs/contract.md §9).

const documentError = (description: string, headers: Partial<Record<HeaderName, boolean>> = {}): ResponseSpec => ({
  description,
  body: DocumentError,
  headers,
});

const DOCUMENT_ERRORS = {
  401: documentError('`Unauthenticated.`: no key, or an unknown or revoked one.', { 'WWW-Authenticate': true }),
  403: documentError('The key lacks the `documents` scope.'),
  404: documentError("`Resource not found.`: no such document for this key's owner, or a bad id."),
  413: documentError('The body is larger than 64 KiB.'),
  415: documentError('The body is neither form-encoded nor JSON.'),
  422: documentError('Validation failed; `errors` names each field at fault.'),
  502: documentError('The text generator failed or answered nonsense.'),
  503: documentError('The document store is down.', { 'Retry-After': true }),
  504: documentError('The text generator did not answer in time.'),
  500: documentError('`Server Error.`: something went wrong on the server (logged).'),
} satisfies Record<number, ResponseSpec>;

/**
 * A route of interface B: listed under Documents, for a key with the `documents` scope, the document's
 * id as path parameter when the path has `:id`, a body form-encoded or JSON, and the
 * {@link DOCUMENT_ERRORS} of the statuses it names.
 */
const documentRoute = routeGroup({
  tag: 'Documents',
  auth: 'key',
  scope: 'documents',
  // A number, as the body's `id` is: any other path is a 404.
  idParams: Type.Object({ id: Type.Integer({ minimum: 1, description: "the document's id" }) }),
  bodyTypes: ['application/x-www-form-urlencoded', 'application/json'],
  errors: DOCUMENT_ERRORS,
});

/** The owner of the call's key. */
const ownerOf = (call: Call): string => keyOf(call).owner;

/** The document id of the path. */
const idOf = (call: Call): number => documentIdOf(call.params.id);

/** The routes of interface B, in the order of the reference page. */
export const DOCUMENT_ROUTES = [
  documentRoute('get', '/api/v1/documents', 'listDocuments', {
    tool: 'documents_list',
    summary: "List the owner's documents",
    query: DocumentListQuery,
    answers: { 200: { description: 'One page.', body: DocumentList } },
    errors: [401, 403, 422, 503, 500],
    async handle(call) {
      const { options, filters } = listingOf(parseQuery(call.query));
      const page = await call.dossier.documents.list(ownerOf(call), options);
      // Laravel builds absolute links from the request's host; without one, links are paths. The path
      // as requested, so that links keep the prefix the contract is mounted under.
      const path = call.path.replace(/\/+$/, '');
      const { protocol, host } = call.client();
      call.reply.json(wireDocumentList(page, filters, host ? `${protocol}://${host}${path}` : path));
    },
  }),
  documentRoute('post', '/api/v1/documents', 'createDocument', {
    tool: 'document_create',
    summary: 'Generate and store a document',
    description: 'With `Accept: text/event-stream` the answer is a 200 stream of Server-Sent Events.',
    body: { schema: DocumentCreate, required: true },
    answers: {
      // The stream declares no `content`: a generated client (openapi-typescript with openapi-fetch)
      // would type every create's `data` as `string | DocumentCreated` with one. Without it, a JSON
      // create is typed `DocumentCreated`; the stream is read from the response (docs/http-api.md).
      200: {
        description:
          'With `Accept: text/event-stream`: `text/event-stream; charset=utf-8`, Server-Sent Events: `event: delta` with ' +
          '`data: {"text"}` while the text is written, then one `event: document` whose data is the stored `Document`; or ' +
          '`event: error` with `data: {"message","status":502|504}` and nothing stored.',
      },
      201: { description: 'The stored document.', body: Envelope(Document, 201, 'DocumentCreated') },
    },
    errors: [401, 403, 413, 415, 422, 502, 503, 504, 500],
    async handle(call) {
      const owner = ownerOf(call);
      const input = newDocumentOf(await readFields(call.request));
      if (acceptsEventStream(call.request.header('accept'))) {
        const { signal } = call.request;
        // Validation throws here, before any event, to be answered as JSON like any other error.
        const events = await call.dossier.documents.createStream(owner, input, signal);
        call.reply.streamed(
          {
            'Content-Type': 'text/event-stream; charset=utf-8',
            'Cache-Control': 'no-cache, no-transform',
            'X-Accel-Buffering': 'no',
          },
          // What a client that left before the `document` event stored is removed (document-stream.ts).
          eventStream(events, signal, call.path, call.logger, (document) => call.dossier.documents.delete(owner, document.id)),
        );
        return;
      }
      call.reply.json({ data: wireDocument(await call.dossier.documents.create(owner, input)), status: 201 }, 201);
    },
  }),
  documentRoute('get', '/api/v1/documents/:id', 'getDocument', {
    tool: 'document_get',
    summary: 'Read one document',
    answers: { 200: { description: 'The document.', body: Envelope(Document, 200, 'DocumentAnswer') } },
    errors: [401, 403, 404, 503, 500],
    async handle(call) {
      call.reply.json({ data: wireDocument(await call.dossier.documents.get(ownerOf(call), idOf(call))), status: 200 });
    },
  }),
  ...(['put', 'patch'] as const).map((method) =>
    documentRoute(method, '/api/v1/documents/:id', `${method}Document`, {
      tool: method === 'patch' ? 'document_update' : undefined,
      summary: 'Change the fields sent',
      body: { schema: DocumentUpdate },
      answers: { 200: { description: 'The changed document.', body: Envelope(Document, 200, 'DocumentAnswer') } },
      errors: [401, 403, 404, 413, 415, 422, 503, 500],
      async handle(call) {
        // The body is read first, then the id checked, then the fields: the order the answers always had.
        const fields = await readFields(call.request);
        const [owner, id] = [ownerOf(call), idOf(call)];
        let changes;
        try {
          changes = documentChangesOf(fields);
        } catch (error) {
          // An unknown document is a 404 whatever the body says, as the service answers it.
          await call.dossier.documents.get(owner, id);
          throw error;
        }
        call.reply.json({ data: wireDocument(await call.dossier.documents.update(owner, id, changes)), status: 200 });
      },
    }),
  ),
  documentRoute('delete', '/api/v1/documents/:id', 'deleteDocument', {
    tool: 'document_delete',
    summary: 'Delete a document',
    answers: { 200: { description: 'Deleted.', body: DocumentDeleted } },
    errors: [401, 403, 404, 503, 500],
    async handle(call) {
      const id = await call.dossier.documents.delete(ownerOf(call), idOf(call));
      call.reply.json({ id, object: 'document', deleted: true, status: 200 });
    },
  }),
  documentRoute('get', '/api/v1/templates', 'listTemplates', {
    tool: 'templates_list',
    summary: 'Every template a document can be made from',
    answers: { 200: { description: 'Templates by id.', body: TemplateList } },
    errors: [401, 403, 503, 500],
    handle(call) {
      call.reply.json({
        data: call.dossier.documents.templates().map(({ id, name, custom }) => ({ id, name, custom })),
        status: 200,
      });
    },
  }),
];
