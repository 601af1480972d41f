import { DossierError, isDossierError } from '../../errors.js';

/**
 * The error an aborted signal stands for: the lookup service's own deadline error (a `DossierError`
 * reason), else `ERR_UPSTREAM_TIMEOUT` saying that `what` did not answer in time.
 */
export function abortError(signal: AbortSignal, what: string): DossierError {
  const reason: unknown = signal.reason;
  if (isDossierError(reason)) return reason;
  return new DossierError('ERR_UPSTREAM_TIMEOUT', `${what} did not answer in time.`, { cause: reason });
}

/** `signal`, or sooner after `ms` milliseconds: the deadline of one step of a lookup. */
export function withTimeout(signal: AbortSignal, ms: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, Math.floor(ms)))]);
}

/**
 * Calls `handler` once when `signal` aborts (at once when it already has). Returns the function that
 * stops listening, to be called when the work is done, so that a long-lived signal holds no listener.
 */
export function onAbort(signal: AbortSignal, handler: () => void): () => void {
  if (signal.aborted) {
    handler();
    return () => {};
  }
  signal.addEventListener('abort', handler, { once: true });
  return () => signal.removeEventListener('abort', handler);
}

/**
 * `promise`, or a rejection with {@link abortError} as soon as `signal` aborts (`promise` goes on; its
 * outcome is then ignored).
 * @throws whatever `promise` throws, or the abort error.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, what = 'The DNS server'): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stopListening = onAbort(signal, () => reject(abortError(signal, what)));
    promise.then(resolve, reject).finally(stopListening);
  });
}
