import { isIP } from 'node:net';
import { DossierError } from '../errors.js';

/** A network peer as the configuration names it: a host (name or address) and a port. */
export interface HostPort {
  /** A hostname or an IP address (IPv6 without brackets). */
  host: string;
  /** 1 to 65535. */
  port: number;
}

/**
 * Splits `host[:port]` (IPv6 in brackets, or bare without a port) into its parts.
 * @returns undefined when the value is not `host[:port]` or the port is out of range.
 */
export function toHostPort(value: string, defaultPort: number): HostPort | undefined {
  const text = value.trim();
  // A bare IPv6 address: its colons are not a port.
  if (isIP(text) === 6) return { host: text, port: defaultPort };
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  return host === undefined || port < 1 || port > 65535 ? undefined : { host, port };
}

/**
 * {@link toHostPort}, for callers that want an error.
 * @throws DossierError `ERR_CONFIG_INVALID` naming `option` when the value is malformed.
 */
export function parseHostPort(option: string, value: string, defaultPort: number): HostPort {
  const parsed = toHostPort(value, defaultPort);
  if (parsed === undefined) throw new DossierError('ERR_CONFIG_INVALID', `${option} must be host[:port], not "${value}"`);
  return parsed;
}
