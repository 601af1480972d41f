import type { DnsMessageAnswer, DnsMessageClient } from '../../ports/dns-message-client.js';
import type { DnssecStatus } from '../../ports/lookup-service.js';

/** How many labels zone discovery climbs past CNAME owners before it settles for the name itself. */
const MAX_CLIMB = 8;

/**
 * The DNSSEC facts of a name, each asked for, never inferred from other records:
 * - `signed`: the name's zone (the owner of the SOA its answer carries) publishes DNSKEY records, and
 *   its parent publishes a DS for it: both asked with the DO bit.
 * - `validated`: the resolver set the AD flag on its answer about the name itself (asked with the AD
 *   and DO bits). When it did not, the root zone's SOA is asked too: the root is signed, and every
 *   validating resolver holds its trust anchor, so a resolver that does not set AD there does not
 *   validate at all, and `validated` is `null` rather than `false`.
 * @throws DossierError as {@link DnsMessageClient.query} does.
 */
export async function dnssecStatus(domain: string, client: DnsMessageClient, signal: AbortSignal): Promise<DnssecStatus> {
  const { zone, answer } = await findZone(domain, client, signal);
  const [dnskey, ds, validates] = await Promise.all([
    client.query(zone, 'DNSKEY', signal),
    client.query(zone, 'DS', signal),
    answer.authenticated ? Promise.resolve(true) : resolverValidates(client, signal),
  ]);
  const signed =
    dnskey.answers.some((record) => record.type === 'DNSKEY' && record.name === zone) &&
    ds.answers.some((record) => record.type === 'DS' && record.name === zone);
  return { signed, validated: validates ? answer.authenticated : null };
}

/**
 * The zone a name belongs to: the owner of the SOA in the answer to `SOA <name>` (in the answer section
 * at a zone's apex, in the authority section of a NODATA or NXDOMAIN answer). A CNAME owner cannot be
 * an apex, and its SOA question is answered for the CNAME's target, so for it the parent name is asked.
 */
async function findZone(
  domain: string,
  client: DnsMessageClient,
  signal: AbortSignal,
): Promise<{ zone: string; answer: DnsMessageAnswer }> {
  const first = await client.query(domain, 'SOA', signal);
  let name = domain;
  let answer = first;
  for (let climbs = 0; climbs < MAX_CLIMB; climbs += 1) {
    const aliased = answer.answers.some((record) => record.type === 'CNAME' && record.name === name);
    if (!aliased) {
      const soa = [...answer.answers, ...answer.authorities].find((record) => record.type === 'SOA');
      // The AD flag is the one of the answer about the domain itself, whichever name gave the zone.
      return { zone: soa?.name ?? name, answer: first };
    }
    if (name === '') break;
    name = name.includes('.') ? name.slice(name.indexOf('.') + 1) : '';
    answer = await client.query(name, 'SOA', signal);
  }
  return { zone: domain, answer: first };
}

/**
 * Whether the resolver validates: it set the AD flag on the root zone's SOA. A resolver that cannot
 * answer that (offline, refusing) is taken as one that does not validate, and the lookup goes on.
 */
async function resolverValidates(client: DnsMessageClient, signal: AbortSignal): Promise<boolean> {
  try {
    return (await client.query('', 'SOA', signal)).authenticated;
  } catch (error) {
    if (signal.aborted) throw error;
    return false;
  }
}
