import type { DnsResolver } from './dns-resolver.js';

/**
 * Decides which addresses lookups may connect to. Checks are made on the address actually connected
 * to, after resolution, so a name that resolves to a private address (DNS rebinding) is refused too.
 */
export interface TargetGuard {
  /** True when the rule is lifted (`DOSSIER_ALLOW_PRIVATE_TARGETS`, for tests on loopback). */
  readonly allowPrivate: boolean;
  /**
   * Resolves `host` (a name or an IP literal) and returns the allowed address to connect to.
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`; `ERR_UPSTREAM_FAILED` when the name has no
   *   address; `ERR_UPSTREAM_TIMEOUT` when the DNS server does not answer.
   */
  resolve(host: string, resolver: DnsResolver): Promise<string>;
}
