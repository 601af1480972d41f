import { expect } from 'chai';

/** The admin token the example apps are started with. */
export const EXAMPLE_ADMIN_TOKEN = 'example-app-admin-token-0123456789abcdefgh';

/**
 * Drives a Dossier mounted at `base` (`http://127.0.0.1:PORT/dossier`) over HTTP as its users do: a key
 * made with the admin API, a DNS lookup of `domain` (answered by the test's DNS server with `address`), a
 * document created and listed, a document created over Server-Sent Events, the panel's sign-in, and
 * /docs with its assets.
 */
export async function driveMounted(base: string, domain: string, address: string): Promise<void> {
  const origin = new URL(base).origin;
  const created = await fetch(`${base}/admin/api/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${EXAMPLE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'example app' }),
  });
  expect(created.status, await created.clone().text()).to.equal(201);
  const key = ((await created.json()) as { data: { key: string } }).data.key;
  const auth = { authorization: `Bearer ${key}` };

  const lookup = await fetch(`${base}/api/dns?domain=${domain}`, { headers: auth });
  expect(lookup.status, await lookup.clone().text()).to.equal(200);
  const dns = (await lookup.json()) as { status: string; data: { A: { address: string }[] } };
  expect(dns.data.A.map((record) => record.address)).to.deep.equal([address]);

  const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
  const document = await fetch(`${base}/api/v1/documents`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ name: 'Launch', prompt: 'Our coffee subscription', template_id: '33' }).toString(),
  });
  expect(document.status, await document.clone().text()).to.equal(201);
  const streamed = await fetch(`${base}/api/v1/documents`, {
    method: 'POST',
    headers: { ...form, accept: 'text/event-stream' },
    body: new URLSearchParams({ name: 'Streamed', prompt: 'Our tea subscription', template_id: '33' }).toString(),
  });
  expect(streamed.status).to.equal(200);
  expect(streamed.headers.get('content-type')).to.match(/^text\/event-stream/);
  const events = await streamed.text();
  expect(events).to.match(/^event: delta\n/);
  expect(events).to.include('event: document\n');
  const listed = await fetch(`${base}/api/v1/documents?template_id=33`, { headers: auth });
  expect(listed.status).to.equal(200);
  const names = ((await listed.json()) as { data: { name: string }[] }).data.map((entry) => entry.name);
  expect(names.sort()).to.deep.equal(['Launch', 'Streamed']);

  const signIn = (token: string): Promise<Response> =>
    fetch(`${base}/admin/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token }).toString(),
    });
  expect((await signIn('not-the-token')).status).to.equal(401);
  const signedIn = await signIn(EXAMPLE_ADMIN_TOKEN);
  expect(signedIn.status).to.equal(303);
  const cookie = signedIn.headers.get('set-cookie')!.split(';', 1)[0]!;
  const panel = await fetch(`${base}/admin`, { headers: { cookie } });
  expect(panel.status).to.equal(200);
  expect(await panel.text()).to.include('Create key');
  for (const asset of ['admin.js', 'admin.css']) {
    const response = await fetch(`${base}/admin/assets/${asset}`);
    expect(response.status, asset).to.equal(200);
    expect((await response.text()).length, asset).to.be.above(1000);
  }

  const docs = await fetch(`${base}/docs`);
  expect(docs.status).to.equal(200);
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'init.js']) {
    const response = await fetch(`${base}/docs/${asset}`);
    expect(response.status, asset).to.equal(200);
    expect((await response.arrayBuffer()).byteLength, asset).to.be.above(100);
  }
  const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { servers: { url: string }[] };
  expect(openapi.servers.map((server) => server.url)).to.deep.equal([new URL(base).pathname]);
}
