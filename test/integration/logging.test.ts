import { expect } from 'chai';
import { createJsonLogger } from '../../adapters/http/logging.js';
import { optionsFromEnv, type LogLevel } from '../../lib/options.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { startOpenAiServer, type TestOpenAiServer } from '../support/openai-server.js';

/** A logger whose lines are kept, parsed, for the test to read. */
function capturingLogger(level: LogLevel = 'info') {
  const text: string[] = [];
  const logger = createJsonLogger({ level, destination: { write: (line: string) => void text.push(line) } });
  return {
    logger,
    text,
    lines: (): Record<string, unknown>[] => text.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

eachAdapter(() => {
  describe('request logs', () => {
    let server: TestServer;
    let openai: TestOpenAiServer;

    before(async () => {
      openai = await startOpenAiServer();
    });
    after(async () => {
      await openai.close();
    });
    afterEach(async () => {
      await server.close();
    });

    it('writes one JSON line per request with time, level, msg, method, route, status, ms, request_id and key_id', async () => {
      const log = capturingLogger();
      server = await startTestServer({ logger: log.logger });
      const { key, secret } = await server.dossier.keys.create({ name: 'logged' });
      const response = await server.get('/api/v1/documents/12345?search=private-words', secret, {
        headers: { 'X-Request-Id': 'req-1' },
      });
      expect(response.status).to.equal(404);
      await server.get('/healthz');
      const lines = log.lines().filter((line) => line.msg === 'request');
      expect(lines).to.have.length(2);
      expect(Object.keys(lines[0]!).sort()).to.deep.equal(
        ['key_id', 'level', 'method', 'ms', 'msg', 'request_id', 'route', 'status', 'time'].sort(),
      );
      expect(lines[0]).to.include({
        level: 'info',
        msg: 'request',
        method: 'GET',
        route: '/api/v1/documents/:id',
        status: 404,
        request_id: 'req-1',
        key_id: key.id,
      });
      expect(lines[0]!.ms).to.be.a('number').at.least(0);
      expect(new Date(lines[0]!.time as string).toISOString()).to.equal(lines[0]!.time);
      expect(lines[1]).to.include({ route: '/healthz', status: 200, key_id: null });
      expect(lines[1]!.request_id)
        .to.be.a('string')
        .that.matches(/^[A-Za-z0-9._:-]{1,128}$/)
        .and.not.equal('req-1');
      expect(log.text.join('')).to.not.include('private-words');
    });

    it("puts the request's id (and key id) on every line the request causes, in the core too", async () => {
      const log = capturingLogger();
      openai.behaviour = { kind: 'fail', status: 500 };
      server = await startTestServer({
        logger: log.logger,
        generator: 'openai',
        openai: { baseUrl: openai.baseUrl, model: 'test', apiKey: 'sk-upstream-secret-0123456789' },
      });
      const { key, secret } = await server.dossier.keys.create({ name: 'failing' });
      const response = await server.get('/api/v1/documents', secret, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Doc', prompt: 'Anything' }),
      });
      expect(response.status).to.equal(502);
      const id = response.headers.get('x-request-id');
      const lines = log.lines();
      expect(lines.length).to.be.at.least(2);
      const caused = lines.filter((line) => line.request_id === id);
      expect(caused.length, JSON.stringify(lines)).to.equal(lines.length);
      expect(caused.some((line) => line.level === 'warn' && line.msg !== 'request')).to.equal(true);
      for (const line of caused) expect(line.key_id).to.equal(key.id);
      expect(log.text.join('')).to.not.include('sk-upstream-secret');
    });

    it('never writes a key or the Authorization header, whatever the requests carry', async () => {
      const log = capturingLogger('debug');
      server = await startTestServer({ logger: log.logger, adminToken: 'logging-test-admin-token-0123456789abcdef' });
      const used: string[] = ['logging-test-admin-token-0123456789abcdef'];
      for (let i = 0; i < 3; i += 1) used.push(await server.key({ scopes: i === 0 ? ['documents'] : ['lookup', 'documents'] }));
      const revokedKey = await server.dossier.keys.create({ name: 'revoked' });
      await server.dossier.keys.revoke(revokedKey.key.id);
      used.push(revokedKey.secret, `dsr_${'Z'.repeat(43)}`, 'not-even-a-key');
      for (const key of used) {
        await server.get('/api/dns?domain=example.test', key);
        await server.get('/api/v1/documents', key);
        await server.get('/api/v1/templates', key, { headers: { 'X-Request-Id': 'carrying-a-key' } });
        await server.get('/metrics', key);
        await server.get('/nowhere', key);
      }
      const all = log.text.join('');
      expect(log.text.length).to.be.at.least(used.length * 5);
      for (const key of used) expect(all, key).to.not.include(key);
      expect(all.toLowerCase()).to.not.include('authorization');
      expect(all).to.not.include('Bearer');
    });

    it('follows the level: warn drops request lines but keeps warnings; silent writes nothing', async () => {
      const warn = capturingLogger('warn');
      openai.behaviour = { kind: 'fail', status: 500 };
      server = await startTestServer({
        logger: warn.logger,
        generator: 'openai',
        openai: { baseUrl: openai.baseUrl, model: 'test' },
      });
      const key = await server.key();
      await server.get('/healthz');
      await server.get('/api/v1/documents', key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":"a","prompt":"b"}',
      });
      expect(warn.lines().map((line) => line.level)).to.deep.equal(['warn']);
      await server.close();

      const silent = capturingLogger('silent');
      server = await startTestServer({
        logger: silent.logger,
        generator: 'openai',
        openai: { baseUrl: openai.baseUrl, model: 'test' },
      });
      const other = await server.key();
      await server.get('/api/v1/documents', other, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":"a","prompt":"b"}',
      });
      expect(silent.text).to.deep.equal([]);
    });

    it('reads DOSSIER_LOG_LEVEL and refuses a level it does not know, naming the variable', () => {
      expect(optionsFromEnv({ DOSSIER_LOG_LEVEL: 'debug' }).logLevel).to.equal('debug');
      expect(optionsFromEnv({}).logLevel).to.equal(undefined);
      expect(() => optionsFromEnv({ DOSSIER_LOG_LEVEL: 'loud' })).to.throw(/DOSSIER_LOG_LEVEL/);
      expect(() => optionsFromEnv({ DOSSIER_SHUTDOWN_TIMEOUT_MS: 'soon' })).to.throw(/DOSSIER_SHUTDOWN_TIMEOUT_MS/);
      expect(() => optionsFromEnv({ DOSSIER_ADMIN_TOKEN: 'short' })).to.throw(/DOSSIER_ADMIN_TOKEN/);
      expect(optionsFromEnv({ DOSSIER_ADMIN_TOKEN: 'x'.repeat(32), DOSSIER_SHUTDOWN_TIMEOUT_MS: '250' })).to.include({
        adminToken: 'x'.repeat(32),
        shutdownTimeoutMs: 250,
      });
    });
  });
});
