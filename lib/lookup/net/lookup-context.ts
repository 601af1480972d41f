import type { Clock } from '../../ports/clock.js';
import type { DnsResolver } from '../../ports/dns-resolver.js';
import type { Logger } from '../../ports/logger.js';
import type { TargetGuard } from '../../ports/target-guard.js';

/**
 * What every lookup that connects may need besides its own settings: a DNS client per lookup, the
 * target rules, the time and where to report. Each lookup takes its few settings as its own
 * `XLookupOptions`, parsed (a host and a port, not a string to parse again).
 */
export interface LookupContext {
  /** A fresh DNS client on Dossier's own resolvers. */
  createResolver: () => DnsResolver;
  /** Decides which addresses a lookup may connect to. */
  guard: TargetGuard;
  /** Where the time comes from. */
  clock: Clock;
  /** Where diagnostics go. */
  logger: Logger;
}
