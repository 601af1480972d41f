import type { Reading, ScoredField, CorpusCase } from './whois-corpus.js';
import { SCORED_FIELDS, scoreReading } from './whois-corpus.js';

/** The scored cases: answers about a registered domain or a free name, with expectations. */
export function scoredCases(cases: CorpusCase[]): CorpusCase[] {
  return cases.filter(
    (item) =>
      item.expected !== null &&
      (item.name === 'status_registered' || item.name === 'status_available') &&
      item.expected.available !== null,
  );
}

/**
 * The domain a fixture answers about: its expectation's, else the one its text names, else a name
 * nobody holds in the zone of the registered answer beside it in `corpus` (`uy.com` for CentralNic's
 * `uy.com` folder, `chirurgiens-dentistes.fr` for smallregistry's), else under its TLD.
 */
export function corpusDomain(item: CorpusCase, corpus: readonly CorpusCase[] = []): string {
  if (item.expected?.domain) return item.expected.domain.toLowerCase();
  const text = item.bytes.toString('latin1');
  // `Domain Name: x`, `domain.....: x`, `a. [Domain Name]   x` (JPRS), `1a. Domain Name : x`, `Nom de domaine#. . . .x`.
  const named =
    /(?:^|\n)[ \t]*(?:[a-z0-9]{1,2}\.?[ \t]+)?\[?(?:complete )?(?:domain(?: name)?|nom de domaine|dominio)\]?#?[ \t]*(?:\.{2,}[ \t]*:?|(?:\. ?){2,}|:|[ \t])[ \t]*([a-z0-9.-]+\.[a-z0-9-]+)\.?[ \t]*\r?\n/i.exec(
      text,
    ) ??
    /(?:no match for(?: domain)?|not found:?|no entries found for|no such domain:?)\s*"?([a-z0-9.-]+\.[a-z0-9-]+)"?/i.exec(text);
  if (named) return named[1]!.toLowerCase().replace(/\.$/, '');
  const folder = item.id.slice(0, item.id.lastIndexOf('/'));
  const registered = corpus.find((other) => other.id === `${folder}/status_registered` && other.expected?.domain);
  const zone = registered?.expected?.domain?.toLowerCase().replace(/^[^.]+\./, '') ?? item.tld ?? 'com';
  return `no-such-name-here.${zone}`;
}

/** Right answers per field, for a table that compares parsers. */
export class Tally {
  readonly right = new Map<ScoredField, number>();
  readonly total = new Map<ScoredField, number>();
  readonly misses: string[] = [];
  add(item: CorpusCase, reading: Reading | null, text: string): void {
    for (const [field, ok] of scoreReading(item.expected!, reading, text)) {
      this.total.set(field, (this.total.get(field) ?? 0) + 1);
      if (ok) this.right.set(field, (this.right.get(field) ?? 0) + 1);
      else this.misses.push(`${item.id} ${field}`);
    }
  }
  share(field?: ScoredField): number {
    const fields: readonly ScoredField[] = field === undefined ? SCORED_FIELDS : [field];
    const right = fields.reduce((sum, f) => sum + (this.right.get(f) ?? 0), 0);
    const total = fields.reduce((sum, f) => sum + (this.total.get(f) ?? 0), 0);
    return total === 0 ? 1 : right / total;
  }
}
