import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { DossierError } from '../../errors.js';

/** How strict {@link parseDomainName} is. */
export interface DomainNameRules {
  /** Accept `_` in labels other than the last (`_dmarc.example.com`), as DNS does. @default false */
  allowUnderscore?: boolean;
}

const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
/** Whitespace, controls and the characters that show nothing: soft hyphen, joiners, bidi marks, variation selectors, BOM. */
const INVISIBLE =
  /[\s\u0000-\u001f\u007f-\u009f\u00ad\u034f\u180b-\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufe00-\ufe0f\ufeff]/;

/**
 * Checks a domain name given by a user and returns it in lower-case ASCII (punycode for IDNs), with
 * no trailing dot. Refuses, with a sentence that says why, anything that is not a bare hostname: a URL,
 * a port, a path, userinfo, an IP address in any spelling, whitespace, control or full-width
 * characters, a label over 63 characters, a name over 253, a bare top-level domain.
 * @throws DossierError `ERR_LOOKUP_INVALID_DOMAIN`
 */
export function parseDomainName(input: unknown, rules: DomainNameRules = {}): string {
  if (typeof input !== 'string' || input.length === 0) throw invalid('The domain parameter is required.');
  if (input.length > MAX_NAME_LENGTH + 1) throw invalid(`A domain name has at most ${MAX_NAME_LENGTH} characters.`);
  if (INVISIBLE.test(input)) throw invalid('A domain name has no whitespace, control or invisible characters.');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) throw invalid('Give a domain name, not a URL.');
  if (/[/\\?#]/.test(input)) throw invalid('Give a domain name, without a path or query.');
  if (input.includes('@')) throw invalid('Give a domain name, without user information.');
  if (input.includes('%')) throw invalid('A domain name has no percent-encoding or zone index.');
  if (isIP(input.replace(/^\[|\]$/g, '')) !== 0) throw invalid('Give a domain name, not an IP address.');
  if (input.includes(':') || input.includes('[')) throw invalid('Give a domain name, without a port.');
  if (/[\u3000-\u303f\uff00-\uffef]/.test(input)) throw invalid('A domain name has no full-width characters.');

  const name = input.endsWith('.') ? input.slice(0, -1) : input;
  // Plain lower-case ASCII names (the common case) are already what domainToASCII would return.
  const ascii = /^[a-z0-9._-]+$/.test(name) && !name.includes('xn--') ? name : domainToASCII(name.toLowerCase());
  if (ascii === '') throw invalid(`"${name}" is not a valid domain name.`);
  if (ascii.length > MAX_NAME_LENGTH) throw invalid(`A domain name has at most ${MAX_NAME_LENGTH} characters.`);

  const labels = ascii.split('.');
  if (labels.length < 2) throw invalid('Give a full domain name, not a top-level domain alone.');
  // A non-ASCII label must stay an IDN: one that folds to plain letters (ⓛⓞⓒⓐⓛ, ｅ) is a disguise.
  const given = name.split('.');
  for (const [i, part] of given.entries()) {
    if (/[^\x00-\x7f]/.test(part) && !labels[i]?.startsWith('xn--')) {
      throw invalid('A domain name has no characters that stand in for plain letters or digits.');
    }
  }
  const label = rules.allowUnderscore ? /^(?:_?[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?|_)$/ : /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
  for (const part of labels) {
    if (part.length > MAX_LABEL_LENGTH) throw invalid(`A label of a domain name has at most ${MAX_LABEL_LENGTH} characters.`);
    if (!label.test(part)) throw invalid(`"${name}" is not a valid domain name.`);
  }
  // An all-numeric or hexadecimal last label is how IPv4 addresses are spelled (127.1, 0x7f.1).
  const tld = labels[labels.length - 1] ?? '';
  if (!/^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld)) {
    throw invalid(
      /^(?:0x[0-9a-f]*|\d+)$/.test(tld) ? 'Give a domain name, not an IP address.' : `"${name}" is not a valid domain name.`,
    );
  }
  return ascii;
}

function invalid(message: string): DossierError {
  return new DossierError('ERR_LOOKUP_INVALID_DOMAIN', message);
}
