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
  if (process.argv[3] && item.id.includes(process.argv[2]!)) console.log(item.id, parsed);
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
