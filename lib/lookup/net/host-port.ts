import { isIP } from 'node:net';

/** A server to connect to: a host name or IP address (IPv6 without brackets), and a port. */
export interface HostPort {
  host: string;
  port: number;
}

const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9])?$/i;

/**
 * Reads `host[:port]`: a host name or IPv4 address with an optional port, an IPv6 address in brackets
 * with an optional port, or a bare IPv6 address (whose colons are not a port). The one parser of
 * Dossier's `host:port` values, for the operator's settings and for servers named by the network
 * (IANA's `whois:` line, a `Registrar WHOIS Server:` referral) alike; it throws nothing, so each caller
 * says what a bad value means to it (a configuration error, an upstream failure).
 * @returns null when the value is not that, or its port is not from 1 to 65535.
 */
export function parseHostPort(value: string, defaultPort: number): HostPort | null {
  const trimmed = value.trim();
  if (trimmed.length > 300) return null;
  if (isIP(trimmed) === 6) return { host: trimmed, port: defaultPort };
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/i.exec(trimmed);
  if (match === null) return null;
  const [, v6, name, portText] = match;
  const port = portText === undefined ? defaultPort : Number(portText);
  if (port < 1 || port > 65535) return null;
  if (v6 !== undefined) return isIP(v6) === 6 ? { host: v6, port } : null;
  if (name === undefined || !(isIP(name) === 4 || HOST_NAME.test(name))) return null;
  return { host: name, port };
}

/** `host:port`, with an IPv6 address in brackets: what a socket address looks like in messages and resolver lists. */
export function formatHostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
