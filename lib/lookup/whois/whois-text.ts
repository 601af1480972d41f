import type { RegistryProfile } from './registries/profile.js';
import { REGISTRY_PROFILES } from './registries/profiles.js';
import { readWhoisAnswer, type WhoisReading } from './registries/read-answer.js';

export type { WhoisReading } from './registries/read-answer.js';

/**
 * The profile of the registry that answers for `domain` (the profile with the longest TLD that ends
 * it), else of the whois server asked; null when none has one and the generic reading applies.
 */
export function registryProfile(
  domain: string,
  server?: string,
  profiles: readonly RegistryProfile[] = REGISTRY_PROFILES,
): RegistryProfile | null {
  const name = domain.toLowerCase();
  let best: RegistryProfile | null = null;
  let bestLength = 0;
  for (const profile of profiles) {
    for (const tld of profile.tlds) {
      if ((name === tld || name.endsWith(`.${tld}`)) && tld.length > bestLength) {
        best = profile;
        bestLength = tld.length;
      }
    }
  }
  return best ?? (server === undefined ? null : serverProfile(server, profiles));
}

/** The profile of a whois server by its host name, or null. */
export function serverProfile(server: string, profiles: readonly RegistryProfile[] = REGISTRY_PROFILES): RegistryProfile | null {
  const host = server.toLowerCase();
  return profiles.find((profile) => profile.servers?.includes(host)) ?? null;
}

/**
 * The question a whois server expects about `domain`: its profile's form (`-T dn,ace {domain}` for
 * DENIC), the bare name for a server without one (the operator's own, a registrar's).
 */
export function whoisQuestion(server: string, domain: string): string {
  return (serverProfile(server)?.query ?? '{domain}').replace('{domain}', domain);
}

/**
 * An answer's text: UTF-8 when its bytes are valid UTF-8, else the registry's charset (ISO-8859-1
 * unless its profile names another), so that no byte the charset defines becomes U+FFFD. ISO-2022-JP
 * (JPRS) is 7-bit, hence valid UTF-8: its escape sequences (`ESC $ B`) tell it apart.
 */
export function decodeWhoisAnswer(bytes: Uint8Array, profile: RegistryProfile | null): string {
  if (ISO_2022_ESCAPE.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'))) {
    return new TextDecoder(profile?.charset?.startsWith('iso-2022') ? profile.charset : 'iso-2022-jp').decode(bytes);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder(profile?.charset ?? 'iso-8859-1').decode(bytes);
  }
}

/** The designations that switch an ISO-2022 text into a multi-byte set (`ESC $ B`, `ESC $ ( D`). */
const ISO_2022_ESCAPE = /\x1b\$[@AB(]/;

/** Reads an answer about `domain` with its registry's profile (see {@link readWhoisAnswer}). */
export function parseWhoisText(domain: string, text: string, server?: string): WhoisReading {
  return readWhoisAnswer(domain, text, registryProfile(domain, server));
}

/** Decodes and reads the answer `server` gave about `domain`, with its registry's profile. */
export function readWhoisBytes(domain: string, bytes: Uint8Array, server?: string): { text: string; reading: WhoisReading } {
  const profile = registryProfile(domain, server);
  const text = decodeWhoisAnswer(bytes, profile);
  return { text, reading: readWhoisAnswer(domain, text, profile) };
}

/** The `whois:` server IANA's answer for a TLD names, if any. */
export function tldWhoisServer(text: string): string | null {
  const match = /^whois:[ \t]*(\S+)/im.exec(text);
  return match?.[1]?.toLowerCase() ?? null;
}
