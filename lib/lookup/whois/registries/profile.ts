import type { DateOrder } from '../dates.js';
import type { FieldLabels } from './labels.js';
import type { Entry } from './reader.js';

/**
 * What is particular to one registry's whois service. Everything is optional: a registry without a
 * profile gets the generic reading, which knows the ICANN layout and the common ccTLD ones.
 */
export interface RegistryProfile {
  /** The TLDs it answers for (`pl`, `co.pl`); the longest match with the domain wins. */
  tlds: readonly string[];
  /** Its whois servers' host names, as IANA or a referral names them. @default [] */
  servers?: readonly string[];
  /** The question it expects, `{domain}` standing for the domain. @default '{domain}' */
  query?: string;
  /** The charset of its answers when they are not UTF-8 (a `TextDecoder` label). @default 'iso-8859-1' */
  charset?: string;
  /** How its all-numeric dates are ordered when day and month could be swapped. @default 'dmy' */
  dateOrder?: DateOrder;
  /** Its own labels for fields, tried before the generic ones. */
  labels?: Partial<FieldLabels>;
  /** Labels it writes without a colon before the value (`Record expires on 2011-11-09`). */
  unkeyedLabels?: readonly string[];
  /** How it says that a name is free, when the generic phrases do not cover it. */
  notFound?: RegExp;
  /** How it says that it limited the question, when the generic phrases do not cover it. */
  throttled?: RegExp;
  /** Code for a layout that labels cannot describe: extra entries read from the raw text. */
  layout?: (text: string) => Entry[];
}
