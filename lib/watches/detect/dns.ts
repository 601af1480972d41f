import type { DnsData } from '../../ports/lookup-service.js';
import { canonicalSet, setDifference, type Detection, type FoundEvent, type WatchMemory } from './detection.js';

/** The record types whose sets a DNS watch compares. */
export const WATCHED_RECORD_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME', 'CAA'] as const;

type RecordSets = Record<(typeof WATCHED_RECORD_TYPES)[number], unknown[]>;

/** The sets of records of `data`, TTLs left out, each in one order. */
function recordSets(data: DnsData): RecordSets {
  return {
    A: canonicalSet(data.A.map((record) => record.address)),
    AAAA: canonicalSet(data.AAAA.map((record) => record.address)),
    MX: canonicalSet(data.MX.map(({ exchange, priority }) => ({ exchange, priority }))),
    NS: canonicalSet(data.NS),
    TXT: canonicalSet(data.TXT),
    CNAME: canonicalSet(data.CNAME),
    CAA: canonicalSet(data.CAA.map(({ critical, tag, value }) => ({ critical, tag, value }))),
  };
}

/**
 * The events of one successful DNS check (docs/contract.md §11): `dns.changed` when the set of records of
 * A, AAAA, MX, NS, TXT, CNAME or CAA differs from the last check's, TTLs ignored (never at the first).
 */
export function detectDns(memory: WatchMemory, data: DnsData): Detection {
  const previous = memory.snapshot as RecordSets | null;
  const current = recordSets(data);
  const events: FoundEvent[] = [];
  if (previous !== null) {
    const changes: Record<string, { added: unknown[]; removed: unknown[] }> = {};
    for (const type of WATCHED_RECORD_TYPES) {
      const difference = setDifference(previous[type] ?? [], current[type]);
      if (difference.added.length > 0 || difference.removed.length > 0) changes[type] = difference;
    }
    if (Object.keys(changes).length > 0) events.push({ type: 'dns.changed', data: { changes } });
  }
  return { events, snapshot: { ...current }, announced: memory.announced };
}
