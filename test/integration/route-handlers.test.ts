import { expect } from 'chai';
import { createRouteHandlers } from '../../adapters/fetch/index.js';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { testOptions } from '../support/harness.js';

const ADMIN_TOKEN = 'route-handlers-admin-token-0123456789abcdef';
const ORIGIN = 'http://app.test';

/** A request as a server hands it to a route handler: with its Host, and a body's Content-Length. */
function request(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Request {
  const headers: Record<string, string> = { host: 'app.test', ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Request(`${ORIGIN}${path}`, { ...init, headers });
}

/** A sign-in with `token`, as the panel's form posts it. */
function signIn(token: string, headers: Record<string, string> = {}): Request {
  return request('/dossier/admin/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...headers },
    body: new URLSearchParams({ token }).toString(),
  });
}

/**
 * `createRouteHandlers` as a Next.js route module uses it: the handlers answer WHATWG requests, the
 * Dossier is made at the first request and kept across reloads of the module, and the sign-in lock-out
 * counts per the address the mount is told.
 */
describe('the route handlers of dossier/fetch (createRouteHandlers)', function () {
  this.timeout(60_000);
  const made: Dossier[] = [];
  let name = 0;
  /** A unique name for each test: the mounts of a process are kept by name. */
  const fresh = (): string => `route-handlers-test-${++name}`;
  const create = (): Dossier => {
    const dossier = createDossier(testOptions({ adminToken: ADMIN_TOKEN }));
    made.push(dossier);
    return dossier;
  };
  after(async () => {
    await Promise.all(made.map((dossier) => dossier.close()));
  });

  it('makes the Dossier at the first request, not when the module loads, and one for every reload of the module', async () => {
    const options = { prefix: '/dossier', name: fresh() };
    const before = made.length;
    const first = createRouteHandlers(create, options);
    expect(made.length, 'no Dossier (and no store) before a request').to.equal(before);
    expect((await first.GET(request('/dossier/healthz'))).status).to.equal(200);
    expect(made.length).to.equal(before + 1);
    // next dev evaluates the module again after a change: the same Dossier answers.
    const reloaded = createRouteHandlers(create, options);
    expect((await reloaded.GET(request('/dossier/healthz'))).status).to.equal(200);
    expect(made.length).to.equal(before + 1);
  });

  it('answers every method through the contract: a document created with POST, listed with GET, and HEAD without a body', async () => {
    const handlers = createRouteHandlers(create, { prefix: '/dossier', name: fresh() });
    await handlers.GET(request('/dossier/healthz'));
    const { secret } = await made.at(-1)!.keys.create({ name: 'route handlers' });
    const auth = { authorization: `Bearer ${secret}` };
    const created = await handlers.POST(
      request('/dossier/api/v1/documents', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'route handlers', prompt: 'A note on route handlers' }),
      }),
    );
    expect(created.status, await created.clone().text()).to.equal(201);
    const listed = await handlers.GET(request('/dossier/api/v1/documents', { headers: auth }));
    expect(listed.status).to.equal(200);
    expect(((await listed.json()) as { data: unknown[] }).data).to.have.length(1);
    const head = await handlers.HEAD(request('/dossier/healthz', { method: 'HEAD' }));
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    const options = await handlers.OPTIONS(request('/dossier/api/v1/documents', { method: 'OPTIONS' }));
    expect(options.status).to.be.below(500);
  });

  it("locks out the address that clientAddress names, not every client, and never believes a client's X-Forwarded-For", async () => {
    const handlers = createRouteHandlers(create, {
      prefix: '/dossier',
      name: fresh(),
      clientAddress: (request) => request.headers.get('x-test-peer') ?? undefined,
    });
    for (let attempt = 1; attempt <= 5; attempt++) {
      const wrong = await handlers.POST(
        signIn('wrong', { 'x-test-peer': '192.0.2.1', 'x-forwarded-for': `198.51.100.${attempt}` }),
      );
      expect(wrong.status).to.equal(401);
    }
    // The sixth from that address is locked, whatever it claims to forward for.
    expect(
      (await handlers.POST(signIn(ADMIN_TOKEN, { 'x-test-peer': '192.0.2.1', 'x-forwarded-for': '198.51.100.9' }))).status,
    ).to.equal(429);
    // Another client signs in.
    const other = await handlers.POST(signIn(ADMIN_TOKEN, { 'x-test-peer': '192.0.2.2' }));
    expect(other.status).to.equal(303);
    expect(other.headers.get('set-cookie')).to.match(/^dossier_admin=/);
  });

  it('behind a reverse proxy (trustProxy), locks out the address the proxy added last to X-Forwarded-For', async () => {
    const handlers = createRouteHandlers(create, { prefix: '/dossier', name: fresh(), trustProxy: true });
    for (let attempt = 1; attempt <= 5; attempt++) {
      // What the client sent first, then what the proxy saw.
      expect((await handlers.POST(signIn('wrong', { 'x-forwarded-for': `10.0.0.${attempt}, 192.0.2.1` }))).status).to.equal(401);
    }
    expect((await handlers.POST(signIn(ADMIN_TOKEN, { 'x-forwarded-for': '192.0.2.1' }))).status).to.equal(429);
    expect((await handlers.POST(signIn(ADMIN_TOKEN, { 'x-forwarded-for': '192.0.2.1, 192.0.2.2' }))).status).to.equal(303);
  });

  it('fails a request when the Dossier cannot be made, and makes it at the next one', async () => {
    let calls = 0;
    const handlers = createRouteHandlers(
      () => {
        calls++;
        if (calls === 1) throw new Error('the store is not there yet');
        return create();
      },
      { name: fresh() },
    );
    let failure: unknown;
    await handlers.GET(request('/healthz')).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('the store is not there yet');
    expect((await handlers.GET(request('/healthz'))).status).to.equal(200);
    expect(calls).to.equal(2);
  });
});
