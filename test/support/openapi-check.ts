import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument, routePatternOf } from '../../adapters/http/openapi.js';
import { FALLBACK_ERROR, ROUTES } from '../../adapters/http/routes.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface OperationResponse {
  headers?: Record<string, { required?: boolean; schema: Record<string, unknown> }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const compiled = new Map<string, ValidateFunction>();

/** The check of `schema`, a schema of the document: its `$ref`s point at the document's named schemas. */
function validator(id: string, schema: object): ValidateFunction {
  let validate = compiled.get(id);
  if (validate === undefined) {
    validate = ajv.compile({ ...schema, components: openApiDocument().document.components });
    compiled.set(id, validate);
  }
  return validate;
}

let templates: { template: string; regex: RegExp }[] | undefined;

/** The document's path template a request path falls under, as the router matches it. */
function templateOf(path: string): string | undefined {
  templates ??= Object.keys(openApiDocument().document.paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
  }));
  return templates.find(({ regex }) => regex.test(path))?.template;
}

function problems(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: '; ' });
}

/**
 * Checks an answer of the server against the OpenAPI document it serves: the status is declared for
 * the operation, every header the document says is always there is there and every declared header
 * has a value of its schema, the media type is a declared one, and a JSON body matches its schema.
 * A path or method the document does not declare (404, 405) must answer one of the API's error bodies.
 * Streamed bodies (SSE, NDJSON) are checked for status and headers only.
 * @throws Error describing the first mismatch.
 */
export async function checkAgainstDocument(method: string, url: string, response: Response): Promise<void> {
  const path = new URL(url, 'http://localhost').pathname;
  const what = `${method} ${path} → ${response.status}`;
  if (method === 'HEAD') return;
  const template = templateOf(path);
  const operation =
    template === undefined
      ? undefined
      : (openApiDocument().document.paths[template]?.[method.toLowerCase()] as
          { responses: Record<string, OperationResponse> } | undefined);
  if (!response.headers.get('x-request-id')) throw new Error(`${what}: no X-Request-Id`);
  if (operation === undefined) {
    if (response.status < 400) {
      // The document is the JSON API's: the panel's own pages (HTML, its styles, script and icon, and the
      // redirects of its forms) are the only answers it leaves out, and none of them is JSON.
      const pattern = routePatternOf(path);
      const page = ROUTES.find((route) => route.path === pattern && route.method === method.toLowerCase());
      if (!page?.hidden) throw new Error(`${what}: the document declares no ${method} ${template ?? path}`);
      if (/json/i.test(response.headers.get('content-type') ?? ''))
        throw new Error(`${what}: a JSON answer of a route the document leaves out`);
      return;
    }
    const body: unknown = JSON.parse(await response.clone().text());
    const validate = validator('fallback', FALLBACK_ERROR);
    if (!validate(body)) throw new Error(`${what}: the body is not an error body of the API: ${problems(validate)}`);
    return;
  }
  const declared = operation.responses[String(response.status)];
  if (declared === undefined) {
    throw new Error(
      `${what}: the document declares only ${Object.keys(operation.responses).join(', ')} for ${method} ${template}`,
    );
  }
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) throw new Error(`${what}: the document says ${name} is always sent; it is missing`);
      continue;
    }
    const typed = header.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
    const validate = validator(`header ${name}`, header.schema);
    if (!validate(typed)) throw new Error(`${what}: header ${name}: ${JSON.stringify(value)} ${problems(validate)}`);
  }
  const content = declared.content;
  if (content === undefined) return;
  const type = response.headers.get('content-type') ?? '';
  const base = (media: string): string => media.split(';', 1)[0]!.trim().toLowerCase();
  const media = Object.keys(content).find((declaredType) => base(declaredType) === base(type));
  if (media === undefined)
    throw new Error(`${what}: Content-Type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
  if (base(media) !== 'application/json') return;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${what}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  const validate = validator(`${method} ${template} ${response.status} ${media}`, content[media]!.schema);
  if (!validate(body))
    throw new Error(`${what}: the body does not match the document: ${problems(validate)}\n${text.slice(0, 500)}`);
}
