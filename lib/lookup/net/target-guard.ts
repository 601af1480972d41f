import { isIP } from 'node:net';
import { DossierError } from '../../errors.js';
import type { DnsResolver } from '../../ports/dns-resolver.js';
import type { TargetGuard } from '../../ports/target-guard.js';
import { canonicalIpText } from './ip-address.js';
import { isPublicAddress } from './special-range.js';

export { isPublicAddress };

/** The {@link TargetGuard} of the special address ranges (special-ranges.json). */
export class RangeTargetGuard implements TargetGuard {
  /** @param allowPrivate lifts the rule (`DOSSIER_ALLOW_PRIVATE_TARGETS`, for tests on loopback). */
  constructor(readonly allowPrivate: boolean) {}

  /**
   * Refuses an address lookups may not connect to.
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`
   */
  assertAllowed(address: string, target = address): void {
    if (this.allowPrivate || isPublicAddress(address)) return;
    throw new DossierError(
      'ERR_LOOKUP_TARGET_NOT_ALLOWED',
      `${target} resolves to ${canonicalIpText(address)}, a loopback, private, reserved or otherwise non-public address.`,
    );
  }

  /**
   * Resolves `host` (a name or an IP literal) through Dossier's own resolver and returns the address
   * to connect to: the first A, else AAAA, record, checked by {@link assertAllowed}. Every address the
   * name has must be allowed, so that no answer a later resolution might pick is private.
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`; `ERR_UPSTREAM_FAILED` when the name has no
   *   address; `ERR_UPSTREAM_TIMEOUT` when the DNS server does not answer.
   */
  async resolve(host: string, resolver: DnsResolver): Promise<string> {
    const bare = host.replace(/^\[|\]$/g, '');
    if (isIP(bare) !== 0) {
      this.assertAllowed(bare, host);
      return bare;
    }
    const ask = (query: Promise<{ address: string }[]>): Promise<string[]> =>
      query.then(
        (records) => records.map((record) => record.address),
        (error: { code?: string }) => {
          if (error.code === 'ENODATA' || error.code === 'ENOTFOUND') return [];
          if (error.code === 'ETIMEOUT') {
            throw new DossierError('ERR_UPSTREAM_TIMEOUT', `The DNS server did not answer for ${host}.`, { cause: error });
          }
          throw new DossierError('ERR_UPSTREAM_FAILED', `${host} could not be resolved (${error.code ?? 'error'}).`, {
            cause: error,
          });
        },
      );
    const [v4, v6] = await Promise.all([
      ask(resolver.resolve4(host, { ttl: true })),
      ask(resolver.resolve6(host, { ttl: true })),
    ]);
    const addresses = [...v4, ...v6];
    if (addresses.length === 0) throw new DossierError('ERR_UPSTREAM_FAILED', `${host} has no address.`);
    for (const address of addresses) this.assertAllowed(address, host);
    return addresses[0]!;
  }
}
