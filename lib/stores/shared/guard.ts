import { DossierError } from '../../errors.js';

/** How a {@link StoreGuard} holds a backend to its deadline. */
export interface StoreGuardOptions {
  /**
   * The deadline of one call, in milliseconds; none when absent (a backend whose calls cannot hang,
   * such as memory, or whose driver bounds them itself, such as SQLite's busy timeout). @default undefined
   */
  timeoutMs?: number;
  /**
   * Called once per call that passed its deadline: the backend drops the connection that does not
   * answer (a frozen server would otherwise keep every later command queued behind it). @default none
   */
  onTimeout?: () => void;
}

/**
 * Runs every call of one backend: any failure becomes a rejected `ERR_STORE_UNAVAILABLE`, and a call
 * that has not answered within the deadline is answered with it at once (node-redis's own command
 * timeout does not fire against a server that accepts connections and never answers).
 */
export class StoreGuard {
  constructor(private readonly options: StoreGuardOptions = {}) {}

  /** Runs `operation` under the deadline. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  run<T>(operation: () => Promise<T>): Promise<T> {
    const { timeoutMs } = this.options;
    const call = guardStore(operation);
    if (timeoutMs === undefined) return call;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new DossierError('ERR_STORE_UNAVAILABLE', `The store did not answer within ${timeoutMs} ms.`));
        try {
          this.options.onTimeout?.();
        } catch {
          // Dropping a connection that is already gone changes nothing for the caller.
        }
      }, timeoutMs);
      void call.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }
}

/** Runs a backend call, turning any failure into a rejected `ERR_STORE_UNAVAILABLE` (no deadline). */
export function guardStore<T>(operation: () => Promise<T>): Promise<T> {
  // A plain `.catch` rather than an async wrapper: this sits on every store call of every request.
  try {
    return operation().catch((error: unknown) => Promise.reject(storeError(error)));
  } catch (error) {
    return Promise.reject(storeError(error));
  }
}

/** Any failure of a backend, as the one error the core reports for it. */
export function storeError(error: unknown): DossierError {
  if (error instanceof DossierError) return error;
  return new DossierError('ERR_STORE_UNAVAILABLE', 'The store is unavailable.', { cause: error });
}

/** The failure of every call to a store after its `close()`. */
export function storeClosed(): Promise<never> {
  return Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The store is closed.'));
}
