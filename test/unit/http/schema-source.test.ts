import { expect } from 'chai';
import { buildOpenApiDocument } from '../../../adapters/http/openapi.js';
import { ROUTES } from '../../../adapters/http/routes.js';
import * as shapes from '../../../adapters/http/schemas/shapes.js';
import { DossierValidationError } from '../../../lib/errors.js';
import { parseListOptions } from '../../../lib/documents/validation.js';
import { listingOf, newDocumentOf } from '../../../adapters/http/document-shapes.js';
import { DocumentCreate, DocumentListQuery, DocumentUpdate } from '../../../adapters/http/schemas/documents.js';
import { plainSchema } from '../../../lib/schemas/ajv.js';
import { BatchRequest } from '../../../lib/schemas/batch.js';
import { AdminKeyCreate, AdminKeyRoll, AdminKeyUpdate, AdminUsageQuery } from '../../../lib/schemas/keys.js';

const document = buildOpenApiDocument();
const operation = (path: string, method: string) => document.paths[path]![method] as Record<string, any>;
const route = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path)!;

describe('one source of truth: the request schemas the core validates with are the ones the document shows', () => {
  it('declares each of interface B’s wire request schemas once, and the routes use the same objects', () => {
    expect(shapes.DocumentCreate).to.equal(DocumentCreate);
    expect(shapes.DocumentUpdate).to.equal(DocumentUpdate);
    expect(shapes.DocumentListQuery).to.equal(DocumentListQuery);
    expect(route('post', '/api/v1/documents').body!.schema).to.equal(DocumentCreate);
    expect(route('put', '/api/v1/documents/:id').body!.schema).to.equal(DocumentUpdate);
    expect(route('patch', '/api/v1/documents/:id').body!.schema).to.equal(DocumentUpdate);
    expect(route('get', '/api/v1/documents').query).to.equal(DocumentListQuery);
    expect(shapes.BatchRequest).to.equal(BatchRequest);
    expect(route('post', '/api/batch').body!.schema).to.equal(BatchRequest);
    expect(operation('/api/batch', 'post').requestBody.content['application/json'].schema).to.deep.equal(
      plainSchema(BatchRequest),
    );
  });

  it("builds the admin API's key bodies from the field schemas the key rules check with", () => {
    expect(route('post', '/admin/api/keys').body!.schema).to.equal(AdminKeyCreate);
    expect(route('patch', '/admin/api/keys/:id').body!.schema).to.equal(AdminKeyUpdate);
    expect(route('post', '/admin/api/keys/:id/roll').body!.schema).to.equal(AdminKeyRoll);
    expect(route('get', '/admin/api/keys/:id/usage').query).to.equal(AdminUsageQuery);
    expect(operation('/admin/api/keys', 'post').requestBody.content['application/json'].schema).to.deep.equal(
      plainSchema(AdminKeyCreate),
    );
  });

  it('shows in /openapi.json exactly the schema POST /api/v1/documents is validated against', () => {
    const body = operation('/api/v1/documents', 'post').requestBody.content;
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      expect(body[type].schema).to.deep.equal(plainSchema(DocumentCreate));
    }
    expect(operation('/api/v1/documents/{id}', 'patch').requestBody.content['application/json'].schema).to.deep.equal(
      plainSchema(DocumentUpdate),
    );
  });

  it("shows the listing's parameters with the bounds and defaults the validation applies", () => {
    const parameters = operation('/api/v1/documents', 'get').parameters as { name: string; schema: Record<string, any> }[];
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p.schema]));
    expect(Object.keys(byName)).to.deep.equal(Object.keys(DocumentListQuery.properties));
    const defaults = parseListOptions({});
    expect(byName.per_page!.default).to.equal(defaults.perPage);
    expect(byName.sort!.default).to.equal(defaults.sort);
    expect(byName.template_id!.maximum).to.equal(72);
    expect(() => listingOf({ template_id: String(byName.template_id!.maximum + 1) })).to.throw(DossierValidationError);
  });

  it("enforces and words the schema's own limit", () => {
    const original = DocumentCreate.properties.name.maxLength!;
    try {
      newDocumentOf({ name: 'x'.repeat(original + 1), prompt: 'p' });
      expect.fail('no error');
    } catch (error) {
      expect((error as DossierValidationError).errors.name).to.deep.equal([
        `The name field must not be greater than ${original} characters.`,
      ]);
    }
    expect(newDocumentOf({ name: 'x'.repeat(original), prompt: 'p' }).name).to.have.length(original);
  });
});
