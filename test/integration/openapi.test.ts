import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument, openApiDocument, openApiPath, routePatternOf } from '../../adapters/http/openapi.js';
import { ROUTES } from '../../adapters/http/routes.js';
import type { DnsData, Document, IpData, SslData, WhoisData } from '../../adapters/http/schemas/shapes.js';
import type { wireDocument } from '../../adapters/http/document-shapes.js';
import type { wireIp, wireSsl, wireWhois } from '../../adapters/http/lookup-shapes.js';
import type { DnsData as CoreDnsData } from '../../lib/ports/lookup-service.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

// What the core answers, as the HTTP edge puts them on the wire, must fit the document's types (a
// compile-time check: this file does not build when a port's type or a wire shape drifts from its schema).
type Fits<A extends B, B> = A;
export type CoreFitsDocument = [
  Fits<CoreDnsData, DnsData>,
  Fits<ReturnType<typeof wireWhois>, WhoisData>,
  Fits<ReturnType<typeof wireIp>, IpData>,
  Fits<ReturnType<typeof wireSsl>, SslData>,
  Fits<ReturnType<typeof wireDocument>, Document>,
];

/** Every route of docs/contract.md §2–§9, as `METHOD path`. */
const CONTRACT_ROUTES = [
  'GET /api/dns',
  'GET /api/whois',
  'GET /api/ip',
  'GET /api/ssl',
  'GET /api/usage',
  'POST /api/batch',
  'GET /api/v1/documents',
  'POST /api/v1/documents',
  'GET /api/v1/documents/{id}',
  'PUT /api/v1/documents/{id}',
  'PATCH /api/v1/documents/{id}',
  'DELETE /api/v1/documents/{id}',
  'GET /api/v1/templates',
  'GET /admin',
  'GET /admin/api/keys',
  'POST /admin/api/keys',
  'PATCH /admin/api/keys/{id}',
  'POST /admin/api/keys/{id}/revoke',
  'POST /admin/api/keys/{id}/roll',
  'GET /admin/api/keys/{id}/usage',
  'GET /admin/api/keys/{id}/watches',
  'DELETE /admin/api/watches/{id}',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /openapi.json',
  'GET /docs',
  'GET /',
];

eachAdapter(() => {
  describe('the OpenAPI document', () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server.close();
    });

    it('is served at /openapi.json and is a valid OpenAPI 3.1 document', async () => {
      const response = await server.get('/openapi.json');
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      const document = (await response.json()) as Record<string, unknown>;
      const validator = new Validator();
      const result = await validator.validate(document);
      expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
      expect(result.valid).to.equal(true);
      expect(validator.version).to.equal('3.1');
      expect(document).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    });

    it('describes every route of the contract, both interfaces and the admin API', () => {
      const { paths } = openApiDocument().document;
      const declared = Object.entries(paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(declared).to.include.members(CONTRACT_ROUTES);
      const dns = paths['/api/dns']!.get as { parameters: { name: string; in: string }[]; responses: Record<string, unknown> };
      expect(dns.parameters.map((p) => `${p.in}:${p.name}`)).to.include('query:domain');
      expect(Object.keys(dns.responses)).to.include.members(['200', '400', '401', '403', '429', '502', '503', '504']);
    });

    it('is made for generators: named schemas, plain application/json, numeric document ids', () => {
      const { document } = openApiDocument();
      const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
      expect(schemas).to.include.keys(
        'Document',
        'DocumentList',
        'DocumentCreated',
        'DocumentAnswer',
        'DocumentDeleted',
        'DocumentError',
        'TemplateList',
        'AdminKey',
        'Watch',
        'CreatedWatch',
        'Delivery',
        'DnsAnswer',
        'WhoisAnswer',
        'IpAnswer',
        'SslAnswer',
        'BatchAnswer',
        'UsageAnswer',
        'ApiError',
        'ApiValidationError',
      );
      const text = JSON.stringify(document);
      expect(text).not.to.include('application/json;');
      // Every JSON answer is a named schema, or interface A's named error narrowed to its codes.
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item as Record<string, { responses: Record<string, any> }>)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            const json = response.content?.['application/json']?.schema as Record<string, any> | undefined;
            if (json === undefined || path === '/openapi.json') continue;
            const named =
              json.$ref ?? json.allOf?.[0]?.$ref ?? json.anyOf?.every((one: Record<string, any>) => one.$ref ?? one.allOf);
            expect(named, `${method} ${path} ${status}`).to.not.equal(undefined);
          }
        }
      }
      const get = document.paths['/api/v1/documents/{id}']!.get as { parameters: { name: string; schema: object }[] };
      expect(get.parameters.find((p) => p.name === 'id')!.schema).to.include({ type: 'integer', minimum: 1 });
    });

    it('holds every route but the panel’s and the workspace’s own pages and calls (its document says so)', () => {
      const { document } = openApiDocument();
      for (const route of ROUTES) {
        const declared = document.paths[openApiPath(route.path)]?.[route.method] !== undefined;
        expect(declared, `${route.method} ${route.path}`).to.equal(!route.hidden);
        if (route.hidden)
          expect(route.path, 'a page of the panel or the workspace').to.match(/^\/(?:admin\/(?!api\/)|workspace(?:\/|$))/);
      }
      expect((document.info as { description: string }).description).to.include('left out');
    });

    it('labels a path with its route pattern, never the raw path', () => {
      expect(routePatternOf('/api/v1/documents/42')).to.equal('/api/v1/documents/:id');
      expect(routePatternOf('/API/DNS')).to.equal(null);
      expect(routePatternOf('/api/v1/documents/')).to.equal('/api/v1/documents');
      expect(routePatternOf('/admin/api/keys/key_1/usage')).to.equal('/admin/api/keys/:id/usage');
      expect(routePatternOf('/wp-login.php')).to.equal(null);
      expect(routePatternOf('/api/dns/extra')).to.equal(null);
    });

    describe('holds the answers to it (the check every harness request goes through)', () => {
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
        new Response(JSON.stringify(body), {
          status,
          headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'r1', ...headers },
        });
      const quota = {
        'X-RateLimit-Limit': '10',
        'X-RateLimit-Remaining': '9',
        'X-RateLimit-Reset': '1767225600',
        'RateLimit-Policy': '"daily";q=10;w=86400',
        RateLimit: '"daily";r=9;t=3600',
      };
      const data = {
        domain: 'example.test',
        exists: true,
        A: [],
        AAAA: [],
        MX: [],
        NS: [],
        TXT: [],
        CNAME: [],
        SOA: null,
        CAA: [],
        dnssec: { signed: false, validated: null },
        mail: { spf: null, dmarc: null },
      };

      it('accepts an answer that matches', async () => {
        await checkAgainstDocument(
          'GET',
          '/api/dns?domain=example.test',
          answer(200, { status: 'success', data, cached: false }, quota),
        );
      });

      for (const [what, response, message] of [
        [
          'a body with a field missing',
          answer(200, { status: 'success', data: { ...data, NS: undefined }, cached: false }, quota),
          /NS/,
        ],
        ['a body with a field of the wrong type', answer(200, { status: 'success', data, cached: 'no' }, quota), /cached/],
        [
          'a field the document does not declare',
          answer(200, { status: 'success', data: { ...data, extra: 1 }, cached: false }, quota),
          /additional/,
        ],
        ['a status it does not declare', answer(418, { status: 'error', code: 'teapot', message: 'x' }), /418/],
        [
          'a header it says is always sent, missing',
          answer(200, { status: 'success', data, cached: false }),
          /X-RateLimit-Limit/,
        ],
        [
          'a declared header with a bad value',
          answer(200, { status: 'success', data, cached: false }, { ...quota, 'X-RateLimit-Remaining': '-1' }),
          /Remaining/,
        ],
        [
          'a wrong error code for the status',
          answer(401, { status: 'error', code: 'nope', message: 'x' }, { 'WWW-Authenticate': 'Bearer realm="dossier"' }),
          /code/,
        ],
        [
          'an answer without X-Request-Id',
          new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } }),
          /X-Request-Id/,
        ],
      ] as const) {
        it(`refuses ${what}`, async () => {
          let failure: unknown;
          try {
            await checkAgainstDocument('GET', '/api/dns', response);
          } catch (error) {
            failure = error;
          }
          expect(failure, what).to.be.an('error');
          expect((failure as Error).message).to.match(message);
        });
      }

      it('refuses an unknown path answered with something other than an error body of the API', async () => {
        let failure: unknown;
        try {
          await checkAgainstDocument('GET', '/nowhere', answer(404, { error: 'nope' }));
        } catch (error) {
          failure = error;
        }
        expect(failure).to.be.an('error');
      });
    });
  });
});
