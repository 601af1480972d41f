import { isIP } from 'node:net';

/** A server to connect to: a host name or IP address, and a port. */
export interface Peer {
  host: string;
  port: number;
}

const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9])?$/i;

/**
 * Reads `host[:port]` (an IPv6 address in brackets) found on the network: IANA's `whois:` line, a
 * `Registrar WHOIS Server:` referral. Unlike the configuration's parser it throws nothing: data a
 * server sent is not a configuration error. Null when the value is not a host name or IP address
 * with an optional port from 1 to 65535.
 */
export function parsePeer(value: string, defaultPort: number): Peer | null {
  if (value.length > 300) return null;
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/i.exec(value.trim());
  if (match === null) return null;
  const [, v6, name, portText] = match;
  const port = portText === undefined ? defaultPort : Number(portText);
  if (port < 1 || port > 65535) return null;
  if (v6 !== undefined) return isIP(v6) === 6 ? { host: v6, port } : null;
  if (name === undefined || !(isIP(name) === 4 || HOST_NAME.test(name))) return null;
  return { host: name, port };
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
