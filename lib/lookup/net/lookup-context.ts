import type { ResolvedOptions } from '../../options.js';
import type { DnsResolver } from '../../ports/dns-resolver.js';
import type { TargetGuard } from './target-guard.js';

/** What every lookup may need: the settings, a DNS client per lookup, and the target rules. */
export interface LookupContext {
  /** The resolved options (timeouts, servers, database paths, ports). */
  options: ResolvedOptions;
  /** A fresh DNS client on Dossier's own resolvers. */
  createResolver: () => DnsResolver;
  /** Decides which addresses a lookup may connect to. */
  guard: TargetGuard;
}
