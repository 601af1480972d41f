import { admissionStoreContract } from './admission-store.contract.js';
import { backendCases } from './backends.js';
import { counterStoreContract } from './counter-store.contract.js';
import { documentListingContract } from './document-listing.contract.js';
import { documentServiceContract } from './document-service.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { quotaStoreContract } from './quota-store.contract.js';
import { watchStoreContract } from './watch-store.contract.js';

// The matrix: every contract suite on every backend this machine has.
const { cases, skipped } = backendCases();

describe('backend contracts', () => {
  for (const backend of cases) {
    describe(`on ${backend.name}`, () => {
      after(() => backend.cleanup());
      counterStoreContract(backend);
      keyStoreContract(backend);
      quotaStoreContract(backend);
      admissionStoreContract(backend);
      documentServiceContract(backend);
      documentListingContract(backend);
      watchStoreContract(backend);
    });
  }
  for (const reason of skipped) {
    it(`skips ${reason}`, function () {
      this.skip();
    });
  }
});
