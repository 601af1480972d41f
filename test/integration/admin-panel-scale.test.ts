import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyEntry } from '../../lib/ports/key-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const TOKEN = 'admin-token-for-tests-0123456789abcdef';
const KEYS = 1000;

/** The rows of the keys table a page of the panel shows. */
function rows(html: string): number {
  return html.split('data-label="Daily limit"').length - 1;
}

describe('the panel over a thousand keys', () => {
  let dir: string;
  let server: TestServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-panel-'));
    const store = `sqlite://${join(dir, 'store.sqlite')}`;
    // Loaded through the store's own bulk insert, as an operator's thousands of keys would be there.
    const backend = openBackend(store, { namespace: 'dossier', clock: { now: () => Date.now() } });
    const entries: KeyEntry[] = Array.from({ length: KEYS }, (_, n) => ({
      key: {
        id: `key_${n.toString(16).padStart(16, '0')}`,
        name: `customer ${n} ${'x'.repeat(100)}`,
        owner: `acct_${n}`,
        scopes: ['lookup', 'documents'],
        dailyLimit: null,
        createdAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
        revokedAt: null,
        expiresAt: null,
      },
      secrets: [{ digest: createHash('sha256').update(String(n)).digest('hex') }],
    }));
    await backend.keys!.insertMany(entries);
    await backend.close();
    server = await startTestServer({ store, adminToken: TOKEN });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows its first view, signed in, in under 300 KB: the newest 50 keys, the total, and Next', async () => {
    const signedIn = await fetch(`${server.url}/admin/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
      body: new URLSearchParams({ token: TOKEN }),
      redirect: 'manual',
    });
    const cookie = (signedIn.headers.get('Set-Cookie') ?? '').split(';')[0]!;
    const first = await fetch(`${server.url}/admin`, { headers: { Cookie: cookie } });
    const html = await first.text();
    expect(first.status).to.equal(200);
    expect(Buffer.byteLength(html)).to.be.below(300 * 1024);
    expect(rows(html)).to.equal(50);
    expect(html)
      .to.include(`customer ${KEYS - 1} `)
      .and.not.include(`customer ${KEYS - 51} `);
    expect(html).to.include('>1000 keys · ');
    expect(html).to.match(/<span class="button quiet" aria-disabled="true">Previous<\/span>/);
    const next = /<a class="button" rel="next" href="([^"]+)">Next<\/a>/.exec(html)?.[1];
    expect(next, 'a Next link').to.be.a('string');

    const second = await (
      await fetch(new URL(next!.replaceAll('&amp;', '&'), `${server.url}/admin`), { headers: { Cookie: cookie } })
    ).text();
    expect(rows(second)).to.equal(50);
    expect(second)
      .to.include(`customer ${KEYS - 51} `)
      .and.not.include(`customer ${KEYS - 1} `);
    expect(second).to.match(/<a class="button" rel="prev" href="[^"]+">Previous<\/a>/);
  });
});
