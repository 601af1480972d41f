import type { DnsResolver } from '../../ports/dns-resolver.js';
import { abortError, onAbort, untilAborted } from './abort.js';
import type { TargetGuard } from '../../ports/target-guard.js';
import { RangeTargetGuard } from './target-guard.js';

/** What a connection of a lookup needs to find its peer's address. */
export interface Reach {
  /** Dossier's own resolver for this lookup. */
  resolver: DnsResolver;
  /** The rules for peers a user or the network named (the domain looked up, bootstrap servers, referrals). */
  guard: TargetGuard;
  /** Stops the connection: the lookup's deadline, or a shorter one for a step that may fail. */
  signal: AbortSignal;
}

/** Resolves without the public-address rule, for the servers the operator configured. */
const OPERATOR_GUARD = new RangeTargetGuard(true);

/**
 * Resolves `host` through Dossier's resolver to the one address the connection will use. A host the
 * operator configured is trusted with any address; any other host must resolve only to allowed ones.
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`
 *   (also when `reach.signal` aborts first).
 */
export function resolvePeer(host: string, reach: Reach, trusted: boolean): Promise<string> {
  // Nothing is asked once the deadline has passed.
  if (reach.signal.aborted) return Promise.reject(abortError(reach.signal, `The resolution of ${host}`));
  const guard = trusted ? OPERATOR_GUARD : reach.guard;
  return untilAborted(guard.resolve(host, reach.resolver), reach.signal);
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
