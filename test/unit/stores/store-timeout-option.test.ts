import { expect } from 'chai';
import { optionsFromEnv, resolveOptions } from '../../../lib/options.js';

describe('the store deadline option (DOSSIER_STORE_TIMEOUT_MS)', () => {
  it('defaults to 2000 ms', () => {
    expect(resolveOptions({}).storeTimeoutMs).to.equal(2000);
  });

  it('is read from DOSSIER_STORE_TIMEOUT_MS', () => {
    expect(optionsFromEnv({ DOSSIER_STORE_TIMEOUT_MS: '150' }).storeTimeoutMs).to.equal(150);
  });

  it('refuses a value that is not a positive whole number, naming the variable', () => {
    expect(() => optionsFromEnv({ DOSSIER_STORE_TIMEOUT_MS: 'soon' })).to.throw(/DOSSIER_STORE_TIMEOUT_MS/);
    expect(() => optionsFromEnv({ DOSSIER_STORE_TIMEOUT_MS: '0' })).to.throw(/DOSSIER_STORE_TIMEOUT_MS/);
  });
});
