import { expect } from 'chai';
import { NAMED_TEMPLATES } from '../../lib/documents/templates.js';
import { startOpenAiServer, type TestOpenAiServer } from '../support/openai-server.js';
import { closedPort } from '../support/closed-port.js';
import { until } from '../support/until.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

const API_KEY = 'sk-test-secret-123';

function form(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

eachAdapter(() => {
  describe('the openai generator against a chat-completions server on loopback', () => {
    let openai: TestOpenAiServer;
    let server: TestServer;
    let key: string;

    beforeEach(async () => {
      openai = await startOpenAiServer({ kind: 'answer', text: '  1. Intro\n2. Body\n3. End  ' });
      server = await startTestServer({
        generator: 'openai',
        openai: { baseUrl: `${openai.baseUrl}/`, apiKey: API_KEY, model: 'test-model' },
        // Far from what a loopback answer needs, even a 3 MiB one on a loaded machine: only the test of the
        // deadline itself (below) runs a server whose deadline must fire.
        generatorTimeoutMs: 10_000,
        customTemplates: { 53: { name: 'House style', instruction: 'Write like our house style guide says.' } },
      });
      key = await server.key({ owner: 'alice' });
    });

    afterEach(async () => {
      await server.close();
      await openai.close();
    });

    async function total(): Promise<number> {
      return (await (await server.get('/api/v1/documents', key)).json()).meta.total;
    }

    it('sends model, the template instruction and the prompt, and creativity as temperature, with the bearer key', async () => {
      const response = await server.get(
        '/api/v1/documents',
        key,
        form({ name: 'Plan', prompt: 'Remote work', creativity: '0.25', template_id: '6' }),
      );
      expect(response.status).to.equal(201);
      const { data } = await response.json();
      expect(data.result).to.equal('1. Intro\n2. Body\n3. End');
      expect(data.words).to.equal(6);
      expect(openai.requests).to.have.length(1);
      const request = openai.requests[0]!;
      expect(request.method).to.equal('POST');
      expect(request.path).to.equal('/v1/chat/completions');
      expect(request.authorization).to.equal(`Bearer ${API_KEY}`);
      expect(request.contentType).to.equal('application/json');
      expect(request.body).to.deep.equal({
        model: 'test-model',
        messages: [
          { role: 'system', content: NAMED_TEMPLATES[5]!.instruction },
          { role: 'user', content: 'Remote work' },
        ],
        temperature: 0.25,
      });
    });

    it('sends a custom template instruction from the options', async () => {
      const response = await server.get('/api/v1/documents', key, form({ name: 'n', prompt: 'p', template_id: '53' }));
      expect((await response.json()).data.template).to.deep.equal({ id: 53, name: 'House style' });
      expect((openai.requests[0]!.body as { messages: { content: string }[] }).messages[0]!.content).to.equal(
        'Write like our house style guide says.',
      );
    });

    for (const [label, behaviour, message] of [
      ['fails with HTTP 500', { kind: 'fail', status: 500 }, 'The text generator answered with HTTP status 500.'],
      ['answers 401', { kind: 'fail', status: 401 }, 'The text generator answered with HTTP status 401.'],
      [
        'answers something that is not JSON',
        { kind: 'not-json' },
        'The text generator answered with something that is not JSON.',
      ],
      [
        'answers JSON without choices',
        { kind: 'no-choices' },
        'The text generator answered without any text (no choices[0].message.content).',
      ],
      [
        'answers an empty text',
        { kind: 'answer', text: '   ' },
        'The text generator answered without any text (no choices[0].message.content).',
      ],
      ['answers more than 2 MiB', { kind: 'huge', bytes: 3 * 1024 * 1024 }, 'The text generator answered with more than 2 MiB.'],
    ] as const) {
      it(`answers 502 when the server ${label}, storing nothing and taking no id`, async () => {
        openai.behaviour = behaviour;
        const response = await server.get('/api/v1/documents', key, form({ name: 'n', prompt: 'p' }));
        expect(response.status).to.equal(502);
        const body = await response.json();
        expect(body).to.deep.equal({ message, status: 502 });
        expect(JSON.stringify(body)).to.not.include(API_KEY);
        expect(await total()).to.equal(0);
        openai.behaviour = { kind: 'answer', text: 'ok' };
        expect((await (await server.get('/api/v1/documents', key, form({ name: 'n', prompt: 'p' }))).json()).data.id).to.equal(1);
      });
    }

    it('answers 504 at the deadline when the server never answers, and stores nothing', async () => {
      openai.behaviour = { kind: 'stall' };
      const hasty = await startTestServer({
        generator: 'openai',
        openai: { baseUrl: `${openai.baseUrl}/`, apiKey: API_KEY, model: 'test-model' },
        generatorTimeoutMs: 500,
      });
      try {
        const hastyKey = await hasty.key({ owner: 'alice' });
        const started = Date.now();
        const response = await hasty.get('/api/v1/documents', hastyKey, form({ name: 'n', prompt: 'p' }));
        expect(response.status).to.equal(504);
        expect(await response.json()).to.deep.equal({
          message: 'The text generator did not answer within 0.5 seconds.',
          status: 504,
        });
        expect(Date.now() - started).to.be.below(5000);
        expect(openai.requests).to.have.length(1);
        expect((await (await hasty.get('/api/v1/documents', hastyKey)).json()).meta.total).to.equal(0);
        // The request to the generator was aborted at the deadline, not left hanging.
        await until(() => openai.abandoned === 1, 'the stalled request was aborted');
      } finally {
        await hasty.close();
      }
    });

    it('sends no Authorization header when no API key is configured', async () => {
      const open = await startTestServer({ generator: 'openai', openai: { baseUrl: openai.baseUrl, model: 'm' } });
      try {
        const response = await open.get('/api/v1/documents', await open.key(), form({ name: 'n', prompt: 'p' }));
        expect(response.status).to.equal(201);
        expect(openai.requests[0]!.authorization).to.equal(undefined);
      } finally {
        await open.close();
      }
    });

    it('answers 502 when nothing listens at the base URL', async () => {
      const port = await closedPort();
      const down = await startTestServer({
        generator: 'openai',
        openai: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', apiKey: API_KEY },
      });
      try {
        const response = await down.get('/api/v1/documents', await down.key(), form({ name: 'n', prompt: 'p' }));
        expect(response.status).to.equal(502);
        expect(await response.json()).to.deep.equal({ message: 'The text generator could not be reached.', status: 502 });
      } finally {
        await down.close();
      }
    });
  });
});
