import type { DnsMessageClient } from '../../ports/dns-message-client.js';
import type { DmarcPolicy, MailPolicy } from '../../ports/lookup-service.js';

/** The `p` values RFC 7489 §6.3 defines. */
const DMARC_POLICIES = new Set(['none', 'quarantine', 'reject']);

/**
 * The domain's SPF record among its TXT records (each already joined from its character-strings):
 * the one that starts with `v=spf1` (RFC 7208 §4.5, case-insensitive, then a space or the end).
 * `null` when there is none, and also when there are several: RFC 7208 makes that a permanent error,
 * so no SPF record applies.
 */
export function spfRecord(txt: readonly string[]): string | null {
  const records = txt.filter((record) => /^v=spf1(?: |$)/i.test(record));
  return records.length === 1 ? records[0]! : null;
}

/**
 * The DMARC record among the TXT records of `_dmarc.<domain>` (RFC 7489 §6.6.3): the one whose first
 * tag is `v=DMARC1`, `null` when there is none or several. `policy` is its `p` tag in lower case; when
 * `p` is missing or unknown, `none` if the record has an `rua` tag (as §6.6.3 says), else `null`.
 */
export function dmarcPolicy(txt: readonly string[]): DmarcPolicy | null {
  const records = txt.filter((record) => /^v\s*=\s*DMARC1\s*(?:;|$)/.test(record));
  if (records.length !== 1) return null;
  const record = records[0]!;
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) tags.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  const p = tags.get('p')?.toLowerCase();
  const policy = p !== undefined && DMARC_POLICIES.has(p) ? p : tags.has('rua') ? 'none' : null;
  return { policy, record };
}

/**
 * `mail`: SPF from the domain's own TXT records (already asked), DMARC from the TXT records of
 * `_dmarc.<domain>`, asked here. A `_dmarc` name that does not exist is no DMARC record, not an error.
 * @throws DossierError as {@link DnsMessageClient.query} does.
 */
export async function mailPolicy(
  domain: string,
  txt: readonly string[],
  client: DnsMessageClient,
  signal: AbortSignal,
): Promise<MailPolicy> {
  const name = `_dmarc.${domain}`;
  // A name past DNS's 253 characters cannot be asked, so it has no record.
  if (name.length > 253) return { spf: spfRecord(txt), dmarc: null };
  const answer = await client.query(name, 'TXT', signal);
  const dmarcTxt = answer.answers.flatMap((record) => (record.type === 'TXT' ? [record.data.join('')] : []));
  return { spf: spfRecord(txt), dmarc: dmarcPolicy(dmarcTxt) };
}
