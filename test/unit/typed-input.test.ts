import { expect } from 'chai';
import { createDossier, type Dossier, type DossierValidationError, isDossierError } from '../../lib/index.js';

// The library takes and returns JavaScript's names and types (camelCase, numbers as numbers), and each
// refusal carries the code of its own domain; the HTTP API's snake_case and text are made in adapters/http.

/** What `run` rejected with. */
async function refusal(run: () => Promise<unknown>): Promise<DossierValidationError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'a refusal').to.be.instanceOf(Error);
  return error as DossierValidationError;
}

describe('the library speaks one language: typed, camelCase input and output', () => {
  let dossier: Dossier;
  beforeEach(() => {
    dossier = createDossier({ store: 'memory://', cache: 'memory://', workers: false });
  });
  afterEach(() => dossier.close());

  it('creates, reads, changes, lists and deletes a document with numbers as numbers and camelCase fields', async () => {
    const made = await dossier.documents.create('alice', { name: ' Report ', prompt: 'p', templateId: 6, creativity: 1 });
    expect(made).to.include({ name: 'Report', creativity: 1 });
    expect(made.template.id).to.equal(6);
    expect(made.createdAt).to.equal(made.updatedAt);
    expect(await dossier.documents.get('alice', made.id)).to.deep.equal(made);
    const changed = await dossier.documents.update('alice', made.id, { favorite: true, result: null });
    expect(changed).to.include({ favorite: true, result: '', words: 0 });
    await dossier.documents.create('alice', { name: 'Other', prompt: 'p' });
    const page = await dossier.documents.list('alice', { templateId: 6, perPage: 5, favorite: true });
    expect(page.data.map((d) => d.id)).to.deep.equal([made.id]);
    expect(page).to.include({ currentPage: 1, perPage: 5, lastPage: 1, from: 1, to: 1, total: 1 });
    // Without options, a listing shows template 1's documents, as phpContent's does.
    expect((await dossier.documents.list('alice')).data.map((d) => d.name)).to.deep.equal(['Other']);
    expect(await dossier.documents.delete('alice', made.id)).to.equal(made.id);
    const gone = await refusal(() => dossier.documents.get('alice', made.id));
    expect(gone.code).to.equal('ERR_DOCUMENT_NOT_FOUND');
  });

  it("refuses a document's bad fields with ERR_DOCUMENT_INVALID, naming each by the library's name", async () => {
    const bad = await refusal(() =>
      dossier.documents.create('alice', { name: 'n', prompt: 'p', templateId: 0, creativity: 0.3 }),
    );
    expect(bad.code).to.equal('ERR_DOCUMENT_INVALID');
    expect(bad.errors).to.deep.equal({
      creativity: ['The selected creativity is invalid. Use 0, 0.25, 0.5, 0.75 or 1.'],
      templateId: ['The template id field must be an integer between 1 and 72.'],
    });
    const listing = await refusal(() => dossier.documents.list('alice', { perPage: 101, page: 0 }));
    expect(Object.keys(listing.errors)).to.deep.equal(['perPage', 'page']);
  });

  it("refuses the HTTP API's names (or any unknown option) rather than ignoring them", async () => {
    const error = await refusal(() => dossier.documents.list('alice', { per_page: 25 } as never));
    expect(error.code).to.equal('ERR_DOCUMENT_INVALID');
    expect(error.errors).to.have.keys('per_page');
    const create = await refusal(() => dossier.documents.create('alice', { name: 'n', prompt: 'p', template_id: 3 } as never));
    expect(create.errors).to.have.keys('template_id');
  });

  it('finds no document for an id that is not a positive whole number', async () => {
    for (const id of [0, -1, 1.5, Number.NaN]) {
      const error = await refusal(() => dossier.documents.get('alice', id));
      expect(error.code, String(id)).to.equal('ERR_DOCUMENT_NOT_FOUND');
    }
  });

  it("refuses a key's bad fields with ERR_KEY_INVALID, named as the library names them", async () => {
    const error = await refusal(() => dossier.keys.create({ name: 'k', dailyLimit: -1 }));
    expect(isDossierError(error, 'ERR_KEY_INVALID')).to.equal(true);
    expect(error.errors).to.deep.equal({ dailyLimit: ['The daily limit must be a whole number from 1 to 1000000000.'] });
    const expiry = await refusal(() => dossier.keys.create({ name: 'k', expiresAt: 'soon' }));
    expect(expiry.errors).to.have.keys('expiresAt');
    const { key } = await dossier.keys.create({ name: 'k' });
    const grace = await refusal(() => dossier.keys.roll(key.id, -5));
    expect(grace.code).to.equal('ERR_KEY_INVALID');
    expect(grace.errors).to.have.keys('graceSeconds');
  });

  it("refuses a key's field holding U+0000 with ERR_KEY_INVALID_TEXT, before its other checks", async () => {
    const create = await refusal(() => dossier.keys.create({ name: 'k', owner: 'a\u0000b', dailyLimit: -1 }));
    expect([create.code, create.errors]).to.deep.equal([
      'ERR_KEY_INVALID_TEXT',
      { owner: ['The owner must not contain the NUL character (U+0000).'] },
    ]);
    const { key } = await dossier.keys.create({ name: 'k' });
    const update = await refusal(() => dossier.keys.update(key.id, { name: 'a\u0000b' }));
    expect([update.code, Object.keys(update.errors)]).to.deep.equal(['ERR_KEY_INVALID_TEXT', ['name']]);
    expect((await dossier.keys.get(key.id)).name).to.equal('k');
  });

  it("refuses a watch's bad fields with ERR_WATCH_INVALID, named as the library names them", async () => {
    const error = await refusal(() =>
      dossier.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: 'ftp://x.test/', intervalSeconds: 5 }),
    );
    expect(error.code).to.equal('ERR_WATCH_INVALID');
    expect(error.errors).to.have.keys('webhookUrl', 'intervalSeconds');
  });
});
