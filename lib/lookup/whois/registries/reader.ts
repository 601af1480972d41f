/**
 * The generic reader of whois answers: it turns the text into `label: value` entries, whatever the
 * layout a registry chose, and remembers the header each entry sits under. It knows the shapes
 * registries use, not their words; which label means what is {@link ./labels.ts}'s business.
 *
 * Shapes read:
 * - `Label: value`, `Label.......: value`, `Label....... value`, `Label#. . . . value` (.dz), `[Label]  value` (JPRS), `Label    value`
 *   (one word, a wide gap: `.sk`), with an item's number before the label (`1a.`, `c [Label]`) dropped;
 * - a header line (`Registrar`, `Name servers:`) followed by indented lines, or, flush left, by lines
 *   up to a blank line (`.ch`, `.pl`), or by a blank line and then those: `key: value` lines under it
 *   get it as their section, lines without a label are values of the header itself;
 * - a paragraph that names an object by its handle on its first line (`Registrar: MARK-0292`, `nsset:`);
 * - a value continued on the next lines, indented under it (`.pl`'s name servers);
 * - a line that starts with a label its registry writes without a colon (`Record expires on 2011-11-09`).
 */

/** One `label: value` of an answer. */
export interface Entry {
  /** The label, normalized by {@link normalizeLabel}. */
  label: string;
  /** The header the entry sits under, normalized the same way; `''` at the top level. */
  section: string;
  value: string;
  /**
   * Which object of the answer the entry belongs to: a number shared by the entries of one paragraph
   * or one RIPE-like object (`nic-hdl: GIH6-FRNIC` up to its `source:`), so that a contact named by
   * its handle can be found with its fields. Absent for entries a layout adds.
   */
  object?: number;
}

interface Header {
  label: string;
  indent: number;
  /** Its lines are flush with it and end at a blank line (rather than being indented under it). */
  flat: boolean;
  /** Whether a `key: value` line came under it yet. */
  keyed: boolean;
  /** Whether any line came under it yet. */
  filled: boolean;
}

/**
 * Labels that stand for a block when written flush left with an empty value and followed by flush
 * `key: value` lines (`Registrar:` then `name: …`); any other empty field followed by fields is only empty.
 */
const BLOCK_LABEL =
  /^(?:registrar|sponsoring registrar|registrant|holder|owner|admin|administrative|administrative contact|admin contact|tech|technical|technical contact|tech contact|billing|billing contact|zone contact|contact|contacts|name servers?|nameservers?|dns servers?|domain servers?|servers|dnssec|domain|registrar information|registrant contact)$/;

/** The first field of a paragraph that makes the paragraph that object's (RIPE-like `registrar:` blocks). */
const OBJECT_LABEL = /^(?:registrar|registrant|holder|contact|admin c|tech c|nsset|keyset|owner)$/;

/**
 * The first field of a RIPE-like object other than the domain's, whose value is a name or a handle: the
 * object is a contact's or a host's, whatever it holds (`person: Domain Admin`, `personname:` at NIC.AT,
 * `nic-hdl:` at AFNIC, a name server with its own `created:` at NIC Argentina).
 */
const CONTACT_OBJECT_LABEL = /^(?:person|personname|role|nic hdl(?: br)?|nserver)$/;

/** The first field of a contact's object, where a registry writes it right under the domain's fields. */
const INLINE_OBJECT_LABEL = /^contact$/;

/** The line that ends a RIPE-like object, where registries write no blank line between objects (NIC.AT). */
const OBJECT_END = /^source:/i;

/**
 * A comment that names the block under it, underlined (`% Registrant:` then `% ===========`, the
 * Ukrainian registries): the next paragraph is that block.
 */
const COMMENT_HEADING = /^[%#][ \t]*([A-Za-z][A-Za-z ]{1,40}?)[ \t]*:?[ \t]*$/;
const COMMENT_RULE = /^[%#][ \t]*[=-]{3,}[ \t]*$/;

/** A label as the tables spell it: lower case, words separated by one space, no notes in parentheses. */
export function normalizeLabel(label: string): string {
  return label
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '') // `Fecha de activación` is `fecha de activacion`
    .normalize('NFC')
    .replace(/\([^)]*\)/g, ' ')
    .replace(/[_\-/*]+/g, ' ')
    .replace(/[.:#\]\[]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:\d{1,2}[a-z]?|[a-z]) (?=\S{2})/, ''); // `1a. Domain Name`, `a. [Domain Name]`: an item's number
}

const COMMENT = /^\s*(?:%|#|>>>|;|\*(?!\*)|--)/;
const KEYED = /^([^:]{1,60}?)\s*(?:\.{2,}\s*)?:(?!\/\/)\s*(.*)$/;
const BRACKETED = /^(?:[\p{L}\p{N}]{1,2}\.?\s*)?\[([^\]]{1,60})\]\s*(.*)$/u; // `ｇ. [組織名]`: full-width item letters too
const DOTTED = /^([^.:]{1,60}?)\s*(?:\.{3,}|(?:\. ){2,}\.)\s*(.+)$/;
/** `Domain-name         google.sk`: one word (or hyphenated words) and a value after a wide gap. */
const SPACED = /^([A-Za-z]+(?:[-_.]+[A-Za-z]+)*)\s{3,}(\S.*)$/;

/**
 * The entries of an answer, in the order written.
 * @param unkeyedLabels labels (normalized) that a registry writes without a colon before the value.
 */
export function readEntries(text: string, unkeyedLabels: readonly string[] = []): Entry[] {
  const lines = text.split(/\r\n|\r|\n/).map((line) => line.replace(/\t/g, '        ').replace(/\s+$/, ''));
  const entries: Entry[] = [];
  const headers: Header[] = [];
  let last: { label: string; section: string; indent: number } | null = null;
  let object = 0;
  /** A block named by a comment heading, for the paragraph that follows it. */
  let commentSection: string | null = null;
  /** Whether the line before ended an object (`source:`), which starts another as a blank line does. */
  let objectEnded = false;
  /** The object holding the domain's own field (`domain:`): another may follow it without a blank line. */
  let domainObject: number | null = null;

  /** The next line that is not a comment; past blank lines too when `skipBlank`. */
  const nextLine = (from: number, skipBlank = false): string | null => {
    for (let i = from + 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === '') {
        if (skipBlank) continue;
        return null;
      }
      if (!COMMENT.test(line)) return line;
    }
    return null;
  };
  const indentOf = (line: string): number => line.length - line.trimStart().length;
  const sectionOf = (): string => headers.at(-1)?.label ?? '';

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') {
      // A blank line ends every block, but for a header standing one blank line above its lines
      // (`Name Servers Information:`, a blank line, then the names).
      const top = headers.at(-1);
      headers.length = 0;
      if (top !== undefined && !top.filled) headers.push(top);
      last = null;
      object += 1;
      continue;
    }
    if (COMMENT.test(line)) {
      const heading = COMMENT_HEADING.exec(line.trim());
      if (heading !== null && COMMENT_RULE.test(lines[i + 1]?.trim() ?? '')) commentSection = normalizeLabel(heading[1]!);
      continue;
    }
    const indent = indentOf(line);
    const content = line.trim();
    while (headers.length > 0 && !headers.at(-1)!.flat && headers.at(-1)!.indent >= indent) headers.pop();

    const top = headers.at(-1);
    if (top !== undefined) top.filled = true;
    const paragraphStart = i === 0 || lines[i - 1]!.trim() === '' || objectEnded || COMMENT.test(lines[i - 1]!);
    const pair = keyValue(content);
    objectEnded = pair !== null && OBJECT_END.test(content);
    if (pair !== null) {
      const [label, value] = pair;
      // Whether fields follow, asked only where it matters: it reads the next line once more.
      const fieldsFollow = (): boolean => {
        const following = nextLine(i);
        return following !== null && keyValue(following.trim()) !== null;
      };
      // A new object: a contact's first field, or a block a comment named, at a paragraph's start.
      // NIC Argentina writes its objects with no line between them: after the domain's fields, a
      // contact's first field (`contact: 33693450239`, flush left) starts the contact's object.
      const inlineObject =
        !paragraphStart &&
        indent === 0 &&
        object === domainObject &&
        value !== '' &&
        INLINE_OBJECT_LABEL.test(label) &&
        fieldsFollow();
      const contactObject =
        inlineObject || (paragraphStart && value !== '' && CONTACT_OBJECT_LABEL.test(label) && fieldsFollow());
      const opened = contactObject || (paragraphStart && commentSection !== null);
      if (/^domain(?: name)?$|^domainname$/.test(label) && domainObject === null) domainObject = object;
      if (opened) {
        headers.length = 0;
        object += 1;
        headers.push({ label: commentSection ?? label, indent, flat: true, keyed: true, filled: true });
      }
      commentSection = null;
      if (top?.flat && value === '') headers.pop();
      if (top !== undefined) top.keyed = true;
      const next = nextLine(i, value === '');
      const under = next !== null && indentOf(next) > indent;
      if (value === '') {
        // An empty field, or a header: a header has lines under it, indented or (flush) without
        // labels, or is a block's name followed by its fields.
        const opens = next !== null && (under || keyValue(next.trim()) === null || BLOCK_LABEL.test(label));
        if (opens) headers.push({ label, indent, flat: !under, keyed: false, filled: false });
        last = null;
      } else {
        entries.push({ label, section: sectionOf(), value, object });
        last = { label, section: sectionOf(), indent };
        // A value with fields indented under it names a block too (`registrar: X`, then `  name: …`),
        // and so does a block's first field after a blank line, naming the object by its handle
        // (`Registrar: MARK-0292`, then `Name: MarkMonitor Inc.`).
        const fieldNext = next !== null && keyValue(next.trim()) !== null;
        if (under && fieldNext) headers.push({ label, indent, flat: false, keyed: false, filled: false });
        else if (paragraphStart && fieldNext && OBJECT_LABEL.test(label) && !/\s/.test(value) && !opened) {
          object += 1;
          entries.at(-1)!.object = object;
          headers.push({ label, indent, flat: true, keyed: true, filled: true });
        }
      }
      continue;
    }

    const normalized = normalizeLabel(content.slice(0, 80));
    const unkeyed = unkeyedLabels.find((label) => normalized.startsWith(`${label} `));
    if (unkeyed !== undefined) {
      const words = unkeyed.split(' ').length;
      const value = content.split(/\s+/).slice(words).join(' ');
      entries.push({ label: unkeyed, section: sectionOf(), value, object });
      last = null;
      continue;
    }

    // A block's name on a line of its own: followed by indented lines or by fields, or (for the
    // names blocks have) by a blank line and fields (`Holder`, a blank line, `name....: Google LLC`).
    const next = nextLine(i) ?? (BLOCK_LABEL.test(normalizeLabel(content)) ? nextLine(i, true) : null);
    const opensBlock =
      next !== null &&
      content.length <= 48 &&
      !/[.,;]$/.test(content) &&
      (indentOf(next) > indent || (keyValue(next.trim()) !== null && indentOf(next) === indent));
    if (opensBlock && (top === undefined || !top.flat || top.keyed)) {
      if (top?.flat) headers.pop();
      headers.push({ label: normalizeLabel(content), indent, flat: indentOf(next) <= indent, keyed: false, filled: false });
      last = null;
    } else if (top !== undefined) {
      entries.push({ label: top.label, section: headers.at(-2)?.label ?? '', value: content, object });
    } else if (last !== null && indent > last.indent) {
      entries.push({ label: last.label, section: last.section, value: content, object });
    }
  }
  return entries;
}

/** `[label, value]` of a line written as a label and its value, or null. */
function keyValue(content: string): [string, string] | null {
  // Each shape is tried only when its mark is there: the lazy labels would otherwise be tried at
  // every length against every line.
  const spaced = SPACED.exec(content);
  const match =
    (content.includes('[') ? BRACKETED.exec(content) : null) ??
    (content.includes(':') ? KEYED.exec(content) : null) ??
    (content.includes('...') || content.includes('. . .') ? DOTTED.exec(content) : null) ??
    // A host name followed by its address (`ns1.example.com     192.0.2.1`) is a value, not a label.
    (spaced && /[a-z]\.[a-z]/i.test(spaced[1]!) ? null : spaced);
  if (match === null) return null;
  // A label in two languages (`Estado / Status`, .pt): the last is the one the tables know.
  const label = normalizeLabel(
    match[1]!
      .replace(/\([^)]*\)/g, '')
      .split(' / ')
      .at(-1)!,
  );
  // A label is a few words, not a sentence that happens to hold a colon, nor a time of day.
  if (label === '' || label.split(' ').length > 6 || !/\p{L}/u.test(label) || /^https?$/.test(label)) return null;
  // `Registrar:..........ELB` (.tg): the dots pad the label, they are not the value.
  return [label, match[2]!.trim().replace(/^\.{2,}\s*/, '')];
}
