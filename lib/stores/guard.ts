import { DossierError } from '../errors.js';

/** Runs a backend call, turning any failure into a rejected `ERR_STORE_UNAVAILABLE`. */
export function guardStore<T>(operation: () => Promise<T>): Promise<T> {
  // A plain `.catch` rather than an async wrapper: this sits on every store call of every request.
  try {
    return operation().catch((error: unknown) => Promise.reject(storeError(error)));
  } catch (error) {
    return Promise.reject(storeError(error));
  }
}

function storeError(error: unknown): DossierError {
  if (error instanceof DossierError) return error;
  return new DossierError('ERR_STORE_UNAVAILABLE', 'The store is unavailable.', { cause: error });
}

/** The failure of every call to a store after its `close()`. */
export function storeClosed(): Promise<never> {
  return Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The store is closed.'));
}
