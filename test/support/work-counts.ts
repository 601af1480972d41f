import type { Dossier } from '../../lib/dossier.js';
import type { LookupKind } from '../../lib/ports/lookup-service.js';

/** What a Dossier's core did, as its telemetry reports it, counted while the test runs. */
export interface WorkCounts {
  /** The checks of watches made (each one's lookup included). */
  checks: number;
  /** The kinds of the lookups the lookup service answered, in order. */
  lookups: LookupKind[];
}

/** Counts the checks and lookups `dossier` makes from now on. */
export function countWork(dossier: Dossier): WorkCounts {
  const counts: WorkCounts = { checks: 0, lookups: [] };
  dossier.observe({
    lookup: (kind) => counts.lookups.push(kind),
    upstream() {},
    quotaRejected() {},
    storeError() {},
    generation() {},
    watchCheck: () => (counts.checks += 1),
  });
  return counts;
}
