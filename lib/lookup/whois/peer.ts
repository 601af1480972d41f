import { DossierError } from '../../errors.js';
import { parseHostPort, type HostPort } from '../net/host-port.js';

/**
 * A whois server named by the network (IANA's `whois:` line, a `Registrar WHOIS Server:` referral).
 * It normally names a host (port 43); `host:port` is accepted too, which also lets tests point it at a
 * loopback server on a free port. Privileged ports other than 43 are refused ({@link isWhoisPort}).
 * @throws DossierError `ERR_UPSTREAM_FAILED` when it is not `host[:port]` or names such a port: data
 *   a server sent is not a configuration error.
 */
export function whoisPeer(named: string): HostPort {
  const peer = parseHostPort(named, 43);
  if (peer === null) throw new DossierError('ERR_UPSTREAM_FAILED', `"${named}" is not a whois server.`);
  if (!isWhoisPort(peer.port)) throw new DossierError('ERR_UPSTREAM_FAILED', `Port ${peer.port} is not a whois port.`);
  return peer;
}

/**
 * Whether a whois server named by the network may be asked on `port`: 43 itself, or an unprivileged
 * port, so that a referral cannot aim a query at a mail or SSH server.
 */
export function isWhoisPort(port: number): boolean {
  return port === 43 || port >= 1024;
}

/**
 * Whether an HTTP(S) URL found on the network (a bootstrap entry, an RDAP `related` link, a redirect)
 * may be fetched on `port`: 80, 443, or an unprivileged port, as for whois referrals.
 */
export function isHttpPort(port: number): boolean {
  return port === 80 || port === 443 || port >= 1024;
}
