/** Names registries write that ICU's English names do not match. */
const ALIASES: Record<string, string> = {
  'United States of America': 'US',
  USA: 'US',
  'Great Britain': 'GB',
  England: 'GB',
  'Korea, Republic of': 'KR',
  'Republic of Korea': 'KR',
  'Russian Federation': 'RU',
  'Viet Nam': 'VN',
  'Iran, Islamic Republic of': 'IR',
  'Taiwan, Province of China': 'TW',
  Czechia: 'CZ',
  'Czech Republic': 'CZ',
  Holland: 'NL',
  'The Netherlands': 'NL',
  Deutschland: 'DE',
};

function key(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim();
}

/** Every ISO 3166-1 alpha-2 code that ICU names, keyed by its English name (and the aliases above). */
const BY_NAME: Map<string, string> = new Map();
const CODES = new Set<string>();
{
  const display = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) {
    for (const b of letters) {
      const code = `${a}${b}`;
      const name = display.of(code);
      if (name === undefined || name === code || /^(?:EU|EZ|UN|QO|ZZ)$/.test(code)) continue;
      BY_NAME.set(key(name), code);
      CODES.add(code);
    }
  }
  for (const [alias, code] of Object.entries(ALIASES)) BY_NAME.set(key(alias), code);
}

/**
 * An ISO 3166-1 alpha-2 code, upper case, from a registry's country: a code (`us`; `UK` is GB) or an
 * English name (`United States`, `Korea, Republic of`). Null when it is neither.
 */
export function countryCode(value: string | null): string | null {
  if (value === null) return null;
  const text = value.trim().replace(/^.*\(([a-z]{2})\)$/i, '$1'); // `United States (US)`
  if (/^[a-z]{2}$/i.test(text)) {
    const code = text.toUpperCase();
    if (code === 'UK') return 'GB';
    return CODES.has(code) ? code : null;
  }
  return BY_NAME.get(key(text)) ?? null;
}
