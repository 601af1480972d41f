import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../../lib/dossier.js';
import { dossierJson, serve, SERVER_PROGRAMS } from '../support/cli.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { startOpenAiServer, type TestOpenAiServer } from '../support/openai-server.js';
import { until } from '../support/until.js';

const ADMIN_TOKEN = 'graceful-stop-admin-token-0123456789abcdef';
const UPSTREAM_KEY = 'sk-graceful-upstream-0123456789';

/** True when a connection to `url` is refused. */
function refuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

// dossier serve, and each example app that serves as it does.
for (const program of SERVER_PROGRAMS) {
  describe(`${program.name} stops gracefully`, () => {
    let dir: string;
    let openai: TestOpenAiServer;
    let env: NodeJS.ProcessEnv;
    let child: ChildProcess | undefined;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dossier-stop-'));
      openai = await startOpenAiServer();
      env = {
        PATH: process.env.PATH,
        DOSSIER_STORE: `sqlite://${join(dir, 'store.sqlite')}`,
        DOSSIER_GENERATOR: 'openai',
        DOSSIER_OPENAI_BASE_URL: openai.baseUrl,
        DOSSIER_OPENAI_MODEL: 'slow-model',
        DOSSIER_OPENAI_API_KEY: UPSTREAM_KEY,
        DOSSIER_ADMIN_TOKEN: ADMIN_TOKEN,
      };
    });
    afterEach(async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      await openai.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('on SIGTERM refuses new connections, stores and answers (201) the document being generated, and exits 0', async () => {
      let release!: () => void;
      openai.behaviour = {
        kind: 'gated',
        text: 'A text written slowly.',
        gate: new Promise<void>((resolve) => (release = resolve)),
      };
      const created = await dossierJson<{ key: string }>(['keys', 'create', '--name', 'stopper', '--owner', 'acct-stop'], env);
      const server = await serve(env, undefined, program);
      child = server.child;
      const auth = { Authorization: `Bearer ${created.key}` };
      const templates = await fetch(`${server.url}/api/v1/templates`, { headers: auth });
      await checkAgainstDocument('GET', `${server.url}/api/v1/templates`, templates);
      expect(templates.status).to.equal(200);
      expect((await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status).to.equal(
        200,
      );

      const creating = fetch(`${server.url}/api/v1/documents`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded', 'X-Request-Id': 'slow-create' },
        body: new URLSearchParams({ name: 'Slow', prompt: 'Write slowly' }).toString(),
      });
      await until(() => openai.requests.length === 1, 'the generator to be asked');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await until(() => refuses(server.url), 'the server to stop accepting connections');
      release();
      const response = await creating;
      await checkAgainstDocument('POST', `${server.url}/api/v1/documents`, response);
      expect(response.status).to.equal(201);
      const body = (await response.json()) as { data: { id: number; result: string } };
      expect(body.data.result).to.equal('A text written slowly.');
      const [code] = await exited;
      expect(code).to.equal(0);

      const library = createDossier({ store: env.DOSSIER_STORE! });
      try {
        const stored = await library.documents.get('acct-stop', body.data.id);
        expect(stored.result).to.equal('A text written slowly.');
      } finally {
        await library.close();
      }

      const stderr = server.err();
      const lines = stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.find((line) => line.request_id === 'slow-create')).to.include({
        msg: 'request',
        method: 'POST',
        route: '/api/v1/documents',
        status: 201,
      });
      expect(lines.at(-1)).to.include({ msg: 'stopped', drained: true, stores_closed: true });
      // The whole run's log holds none of the secrets it used.
      for (const secret of [created.key, ADMIN_TOKEN, UPSTREAM_KEY]) expect(stderr).to.not.include(secret);
    });

    it('writes the log line of every request it answered, signalled under load (lines are written a batch at a time)', async () => {
      const server = await serve(env, undefined, program);
      child = server.child;
      const answered: string[] = [];
      let sent = 0;
      let refused = false;
      const load = async (): Promise<void> => {
        while (!refused) {
          const id = `load-${(sent += 1)}`;
          try {
            const response = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': id } });
            await response.arrayBuffer();
            answered.push(id);
          } catch {
            refused = true; // the server stopped (or is stopping): this one may never have reached it
          }
        }
      };
      const clients = Array.from({ length: 8 }, load);
      await until(() => answered.length >= 300, 'requests to be answered');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await Promise.all(clients);
      const [code] = await exited;
      expect(code).to.equal(0);
      const lines = server
        .err()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const logged = new Set(lines.filter((line) => line.msg === 'request').map((line) => line.request_id));
      expect(answered.filter((id) => !logged.has(id))).to.deep.equal([]);
      expect(lines.at(-1)).to.include({ msg: 'stopped', drained: true });
    });

    it('cuts what still runs after DOSSIER_SHUTDOWN_TIMEOUT_MS, stores nothing of it, and still exits 0', async () => {
      openai.behaviour = { kind: 'stall' };
      const created = await dossierJson<{ key: string }>(['keys', 'create', '--name', 'cut', '--owner', 'acct-cut'], env);
      const server = await serve({ ...env, DOSSIER_SHUTDOWN_TIMEOUT_MS: '150' }, undefined, program);
      child = server.child;
      const creating = fetch(`${server.url}/api/v1/documents`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${created.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Never', prompt: 'Stalls' }),
      }).then(
        (response) => response.status,
        () => 'cut',
      );
      await until(() => openai.requests.length === 1, 'the generator to be asked');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(await creating).to.equal('cut');
      const lines = server
        .err()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.at(-1)).to.include({ msg: 'stopped', drained: false });
      const library = createDossier({ store: env.DOSSIER_STORE! });
      try {
        expect((await library.documents.list('acct-cut', {})).total).to.equal(0);
      } finally {
        await library.close();
      }
      for (const secret of [created.key, UPSTREAM_KEY]) expect(server.err()).to.not.include(secret);
    });
  });
}
