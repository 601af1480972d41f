import { expect } from 'chai';
import { optionsFromEnv } from '../../lib/options.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

const SPEC_NAMES = [
  'Freestyle',
  'About us',
  'Advertisement',
  'Article',
  'Blog intro',
  'Blog outline',
  'Blog outro',
  'Blog paragraph',
  'Blog post',
  'Blog section',
  'Blog talking points',
  'Blog title',
  'Call to action',
  'Content rewrite',
  'Content summary',
  'FAQ',
  'Hashtags',
  'Headline',
  'How it works',
  'Meta description',
  'Meta keywords',
  'Mission statement',
  'Newsletter',
  'Pain-Agitate-Solution',
  'Paragraph',
  'Press release',
  'Social post',
  'Social post caption',
  'Startup ideas',
  'Startup names',
  'Subheadline',
  'Testimonial',
  'Tweet',
  'Twitter thread',
  'Value proposition',
  'Video description',
  'Video script',
  'Video tags',
  'Video title',
  'Vision statement',
  'Product sheet',
  'Welcome email',
  'Push notification',
  'Blog listicle',
  'Content grammar',
  'Blog tags',
  'Pros and cons',
  'Google advertisement',
  'Facebook advertisement',
  'Job description',
  'Review',
  'Feature section',
];

eachAdapter(() => {
  describe('GET /api/v1/templates', () => {
    let server: TestServer;

    beforeEach(async () => {
      server = await startTestServer({
        customTemplates: { 53: { name: 'House style', instruction: 'Write in our house style.' } },
      });
    });

    afterEach(async () => {
      await server.close();
    });

    it('lists the 52 templates of the specification in its order, then 53 to 72 as custom', async () => {
      const response = await server.get('/api/v1/templates', await server.key());
      expect(response.status).to.equal(200);
      const body = await response.json();
      expect(body.status).to.equal(200);
      expect(body.data).to.have.length(72);
      expect(body.data.slice(0, 52)).to.deep.equal(SPEC_NAMES.map((name, i) => ({ id: i + 1, name, custom: false })));
      expect(body.data[52]).to.deep.equal({ id: 53, name: 'House style', custom: true });
      expect(body.data[71]).to.deep.equal({ id: 72, name: 'Custom template 72', custom: true });
    });

    it('gives every named template its own instruction', () => {
      const templates = server.dossier.documents.templates();
      const instructions = templates.slice(0, 52).map((t) => t.instruction);
      expect(new Set(instructions).size).to.equal(52);
      expect(templates.find((t) => t.name === 'Tweet')?.instruction).to.include('280 characters');
      expect(templates.find((t) => t.name === 'Blog outline')?.instruction).to.include('outline');
      expect(templates.find((t) => t.name === 'Meta description')?.instruction).to.include('155 characters');
      expect(templates[52]?.instruction).to.equal('Write in our house style.');
    });

    it('needs a key with the documents scope', async () => {
      expect((await server.get('/api/v1/templates')).status).to.equal(401);
      expect((await server.get('/api/v1/templates', await server.key({ scopes: ['lookup'] }))).status).to.equal(403);
    });

    it('takes custom templates from DOSSIER_CUSTOM_TEMPLATES', async () => {
      const options = optionsFromEnv({
        DOSSIER_CUSTOM_TEMPLATES: '{"60":{"name":"Release notes","instruction":"Write release notes."}}',
      });
      const custom = await startTestServer(options);
      try {
        const body = await (await custom.get('/api/v1/templates', await custom.key())).json();
        expect(body.data[59]).to.deep.equal({ id: 60, name: 'Release notes', custom: true });
        expect(custom.dossier.documents.templates()[59]?.instruction).to.equal('Write release notes.');
      } finally {
        await custom.close();
      }
    });
  });
});
