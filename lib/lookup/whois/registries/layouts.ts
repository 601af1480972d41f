import { normalizeLabel, type Entry } from './reader.js';

/**
 * Layouts that labels cannot describe, one function a registry, each turning its answer into the
 * entries the generic labels read (see `RegistryProfile.layout`).
 */

/** Ukrainian registries write the expiry inside the status: `status: OK-UNTIL 20131218000000`. */
export function okUntilLayout(text: string): Entry[] {
  const until = /^status:[ \t]*ok-until[ \t]+(\d{8,14})\b/im.exec(text);
  return until === null ? [] : [{ label: 'expiration date', section: '', value: until[1]! }];
}

/** JPRS writes the end of an attribute-type name's term (`.co.jp`, `.ne.jp`) in its state: `[State] Connected (2010/09/30)`. */
export function jprsStateLayout(text: string): Entry[] {
  const state = /^\[State\][ \t]+\S[^(\n]*\((\d{4}\/\d{2}\/\d{2})\)/im.exec(text);
  return state === null ? [] : [{ label: 'expiration date', section: '', value: state[1]! }];
}

/**
 * RWhois (`domain:Created:20090324`, .ma): `class:attribute:value` lines. An attribute marked `;I` holds
 * another object's ID (`domain:Primary-Server;I:111.google.ma`), not a value.
 */
export function rwhoisLayout(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const [, attribute, reference, value] of text.matchAll(/^domain:([^:;\n]+)(;I)?:[ \t]*(\S.*)$/gim)) {
    if (reference === undefined) entries.push({ label: normalizeLabel(attribute!), section: '', value: value!.trim() });
  }
  return entries;
}

/** Tonic (.to) answers a registered name with its name servers alone, one a line after the name's label: `go ns-1.example.com`. */
export function tonicLayout(text: string): Entry[] {
  return [...text.matchAll(/^\S+[ \t]+([a-z0-9-]+(?:\.[a-z0-9-]+)+)\.?[ \t]*$/gim)].map((match) => ({
    label: 'name server',
    section: '',
    value: match[1]!,
  }));
}

/** ISOC-IL lists the domain's changes oldest first (`changed: … 20140116 (Changed)`): the last is its update. */
export function lastChangedLayout(text: string): Entry[] {
  // The domain's object runs from its `domain:` line to the next object (`person:`, `role:`).
  const domain = /^domain:[\s\S]*?(?=^(?:person|role|contact):|$(?![\s\S]))/im.exec(text)?.[0] ?? '';
  const changed = [...domain.matchAll(/^changed:[ \t]*(\S.*)$/gim)].at(-1);
  return changed === undefined ? [] : [{ label: 'last updated', section: '', value: changed[1]!.trim() }];
}

/**
 * Registro.br names the holder on `owner:` and its tax number on `ownerid:`: a company's CNPJ
 * (`06.990.590/0001-23`) makes the holder an organization; a person's CPF (`123.456.789-01`) does not.
 */
export function cnpjOwnerLayout(text: string): Entry[] {
  const owner = /^owner:[ \t]*(\S.*)$/im.exec(text);
  const company = /^ownerid:[ \t]*\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}[ \t]*$/im.test(text);
  return owner === null || !company ? [] : [{ label: 'registrant organization', section: '', value: owner[1]!.trim() }];
}
