import type { DnsMessageClient } from '../../ports/dns-message-client.js';
import type { CaaRecord } from '../../ports/lookup-service.js';

/**
 * The CAA records of the name itself (RFC 8659), following a CNAME as the resolver does, in the
 * resolver's order. The search up the tree that a CA makes when a name has none is not made here:
 * the answer lists the records the name has, like every other type.
 * @throws DossierError as {@link DnsMessageClient.query} does.
 */
export async function caaRecords(domain: string, client: DnsMessageClient, signal: AbortSignal): Promise<CaaRecord[]> {
  const answer = await client.query(domain, 'CAA', signal);
  return answer.answers.flatMap((record) => (record.type === 'CAA' ? [record.data] : []));
}
