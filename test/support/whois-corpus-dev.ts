// scratch: node dist/test/support/whois-corpus-dev.js [filter]
import { loadWhoisCorpus } from './whois-corpus.js';
import { corpusDomain, scoredCases, Tally } from './whois-corpus-score.js';
import { parseWhoisText, decodeWhoisAnswer, registryProfile } from '../../lib/lookup/whois/whois-text.js';

const cases = scoredCases(loadWhoisCorpus());
const tally = new Tally();
const withDomain = new Tally();
for (const item of cases) {
  const domain = corpusDomain(item);
  const text = decodeWhoisAnswer(item.bytes, registryProfile(domain));
  const parsed = parseWhoisText(domain, text);
  const reading =
    parsed.outcome === 'free'
      ? { registered: false, registrar: null, created_at: null, updated_at: null, expires_at: null, name_servers: [] }
      : parsed.outcome === 'registered'
        ? { registered: true, ...parsed.facts }
        : null;
  tally.add(item, reading, text);
  if (item.expected?.domain) withDomain.add(item, reading, text);
  if (process.argv[3] && item.id.includes(process.argv[2]!)) {
    const field = process.argv[3];
    const e = item.expected as unknown as Record<string, unknown>;
    const r = reading as unknown as Record<string, unknown> | null;
    const map: Record<string, string> = { registrar: 'registrar', created: 'created_at', updated: 'updated_at', expires: 'expires_at', nameservers: 'name_servers' };
    if (field === 'x') console.log(item.id, parsed);
    else console.log(item.id, '| want', JSON.stringify(e[field]), '| got', JSON.stringify(r?.[map[field] ?? field]), parsed.outcome);
  }
}
const pct = (n: number) => (100 * n).toFixed(1) + '%';
for (const t of [tally, withDomain]) {
  console.log(
    'overall',
    pct(t.share()),
    [...t.total.keys()].map((f) => `${f} ${pct(t.share(f))} (${t.total.get(f)})`).join(', '),
  );
}
console.log(tally.misses.filter((m) => !process.argv[2] || m.includes(process.argv[2])).join('\n'));
