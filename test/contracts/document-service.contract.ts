import { expect } from 'chai';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { uniqueName, type BackendCase, CONTRACT_STORE_TIMEOUT_MS } from './backends.js';

/** Writes to one document from two instances sharing the store: none is lost, a delete stays a delete. */
export function documentServiceContract(backend: BackendCase): void {
  if (!backend.shared) return;
  describe('DocumentService, two instances on one store', () => {
    let first: Dossier;
    let second: Dossier;
    let owner: string;
    beforeEach(() => {
      const url = backend.url();
      first = createDossier({ store: url, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
      second = createDossier({ store: url, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
      owner = uniqueName('owner');
    });
    afterEach(async () => {
      await first.close();
      await second.close();
    });

    it('keeps both fields of concurrent updates that change different fields', async () => {
      for (let round = 0; round < 15; round += 1) {
        const { id } = await first.documents.create(owner, { name: 'before', prompt: 'p' });
        await Promise.all([
          first.documents.update(owner, id, { name: `renamed ${round}` }),
          second.documents.update(owner, id, { favorite: true }),
        ]);
        expect(await second.documents.get(owner, id), `round ${round}`).to.include({
          name: `renamed ${round}`,
          favorite: true,
        });
      }
    });

    it('keeps a document deleted when an update on the other instance races the delete', async () => {
      for (let round = 0; round < 15; round += 1) {
        const { id } = await first.documents.create(owner, { name: 'doomed', prompt: 'p' });
        const outcomes = await Promise.allSettled([
          first.documents.delete(owner, id),
          second.documents.update(owner, id, { name: 'revived?' }),
        ]);
        expect(outcomes[0].status, `round ${round}`).to.equal('fulfilled');
        const after = await first.documents.get(owner, id).catch((error: unknown) => error);
        expect(after, `round ${round}`).to.have.property('code', 'ERR_DOCUMENT_NOT_FOUND');
        expect((await second.documents.list(owner, { search: 'revived' })).total, `round ${round}`).to.equal(0);
      }
    });
  });
}
