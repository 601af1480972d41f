import { DossierError, isDossierError } from '../../errors.js';
import type { DnsResolver } from '../../ports/dns-resolver.js';
import { TargetGuard } from '../net/target-guard.js';

/** What a connection of the whois lookup needs to find its peer's address. */
export interface Reach {
  /** Dossier's own resolver for this lookup. */
  resolver: DnsResolver;
  /** The rules for peers found on the network (bootstrap servers, referrals). */
  guard: TargetGuard;
  /** Stops the connection: the lookup's deadline, or a shorter one for a step that may fail. */
  signal: AbortSignal;
}

/** Resolves without the public-address rule, for the servers the operator configured. */
const OPERATOR_GUARD = new TargetGuard(true);

/**
 * Resolves `host` through Dossier's resolver to the one address the connection will use. A host the
 * operator configured is trusted with any address; any other host must resolve only to allowed ones.
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`
 *   (also when `reach.signal` aborts first).
 */
export function resolvePeer(host: string, reach: Reach, trusted: boolean): Promise<string> {
  const guard = trusted ? OPERATOR_GUARD : reach.guard;
  return untilAborted(guard.resolve(host, reach.resolver), reach.signal);
}

/**
 * The error an aborted signal stands for: the lookup service's own deadline error, else a timeout.
 */
export function abortError(signal: AbortSignal, what: string): DossierError {
  const reason: unknown = signal.reason;
  if (isDossierError(reason)) return reason;
  return new DossierError('ERR_UPSTREAM_TIMEOUT', `${what} did not answer in time.`, { cause: reason });
}

/** `signal`, or sooner after `ms` milliseconds. */
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
 * Runs `work` with a fresh resolver of its own, cancelled when `signal` aborts: `Resolver.cancel()`
 * stops every query of its resolver, so each deadline needs a resolver no one else uses.
 * @throws whatever `work` throws.
 */
export async function withOwnResolver<T>(
  createResolver: () => DnsResolver,
  signal: AbortSignal,
  work: (resolver: DnsResolver) => Promise<T>,
): Promise<T> {
  const resolver = createResolver();
  const stopListening = onAbort(signal, () => resolver.cancel());
  try {
    return await work(resolver);
  } finally {
    stopListening();
  }
}

/**
 * `promise`, or a rejection with {@link abortError} as soon as `signal` aborts (`promise` goes on; its
 * outcome is then ignored).
 * @throws whatever `promise` throws, or the abort error.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, what = 'The DNS server'): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortError(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const stopListening = onAbort(signal, () => reject(abortError(signal, what)));
    promise.then(
      (value) => {
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        stopListening();
        reject(error);
      },
    );
  });
}
