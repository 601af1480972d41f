/**
 * Dates as registries write them, read into ISO 8601 in UTC (docs/contract.md §10). A zone the text names is
 * applied; a date-time that names none is taken as UTC; a date alone is midnight UTC of that day.
 */

/** How a registry orders an all-numeric date whose day and month could be swapped (`05/06/2020`). */
export type DateOrder = 'dmy' | 'mdy';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Offsets of the zone abbreviations registries write, in minutes east of UTC. */
const ZONES: Record<string, number> = {
  UTC: 0,
  UT: 0,
  GMT: 0,
  Z: 0,
  WET: 0,
  BST: 60,
  CET: 60,
  WAT: 60,
  MET: 60,
  CEST: 120,
  EET: 120,
  MEST: 120,
  SAST: 120,
  EEST: 180,
  EAT: 180,
  MSK: 180,
  IST: 330,
  ICT: 420,
  WIB: 420,
  CST: -360,
  HKT: 480,
  SGT: 480,
  MYT: 480,
  AWST: 480,
  JST: 540,
  KST: 540,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
  EST: -300,
  EDT: -240,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

/** Parts of a date read from text, before the zone is applied. */
interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/**
 * A registry's date as ISO 8601 in UTC, or null when no date can be read from it. Text around the date
 * (`(YYYY-MM-DD)`, `#24302`, `before`) is ignored; `order` settles dates like `05/06/2020`.
 */
export function parseWhoisDate(value: string | null | undefined, order: DateOrder = 'dmy'): string | null {
  if (value === null || value === undefined) return null;
  const text = value.trim().replace(/\s+/g, ' ');
  if (text === '' || text.length > 120) return null;
  const read = readDate(text, order);
  if (read === null) return null;
  const { parts, rest } = read;
  if (!valid(parts)) return null;
  const offset = zoneOffset(rest);
  const ms = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, parts.ms) - offset * 60_000;
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  return year >= 1970 && year < 10000 ? date.toISOString() : null;
}

const TIME = String.raw`(?:[T ]+|\s*-\s*|,\s*)?(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:\s*([ap])\.?m\.?)?`;
const ISO = new RegExp(String.raw`(\d{4})\s*([-./])\s*(\d{1,2})\s*\2\s*(\d{1,2})\.?(?:${TIME})?`, 'i');
const COMPACT = new RegExp(String.raw`(?<![\d])(\d{4})(\d{2})(\d{2})(?:[T ]?(\d{2}):?(\d{2}):?(\d{2})?)?(?![\d])`);
const NUMERIC = new RegExp(String.raw`(?<![\d])(\d{1,2})\s*([-./])\s*(\d{1,2})\s*\2\s*(\d{4})(?:${TIME})?`, 'i');
const NAMED_DAY_FIRST = new RegExp(
  String.raw`(?<![\d])(\d{1,2})(?:st|nd|rd|th)?[-. /]+([a-z]{3,9})\.?[-. /,]+(\d{4})(?:${TIME})?`,
  'i',
);
const NAMED_MONTH_FIRST = new RegExp(
  String.raw`(?:[a-z]{3,9},? )?([a-z]{3,9})\.? +(\d{1,2})(?:st|nd|rd|th)?,? +(?:(\d{1,2}):(\d{2})(?::(\d{2}))? +(?:([a-z]{2,5}) +)?)?(\d{4})(?:${TIME})?`,
  'i',
);
/** `2004-Mar-16` (.tr). */
const YEAR_NAMED_MONTH = new RegExp(String.raw`(\d{4})-([a-z]{3,9})-(\d{1,2})(?:${TIME})?`, 'i');
const MONTH_YEAR = /(?<![\d])([a-z]{3,9})[-. ](\d{4})(?![\d])/i;
/** `16/09/03` (Red.es): a two-digit year, read as 19xx from 70 on and as 20xx below. */
const SHORT_YEAR = /(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{2})(?![\d/.-])/;

function readDate(text: string, order: DateOrder): { parts: Parts; rest: string } | null {
  let match: RegExpExecArray | null;
  if ((match = ISO.exec(text))) {
    const [, y, , mo, d, ...time] = match;
    return withTime(Number(y), Number(mo), Number(d), time, text, match);
  }
  if ((match = NUMERIC.exec(text))) {
    const [, a, separator, b, y, ...time] = match;
    let [day, month] = [Number(a), Number(b)];
    // Day first unless the registry writes the American order (with slashes) or the value can only be
    // read month first.
    const monthFirst = order === 'mdy' && separator === '/' ? day <= 12 : month > 12 && day <= 12;
    if (monthFirst) [day, month] = [month, day];
    return withTime(Number(y), month, day, time, text, match);
  }
  if ((match = NAMED_DAY_FIRST.exec(text))) {
    const month = monthOf(match[2]!);
    if (month !== null) {
      const [, d, , y, ...time] = match;
      return withTime(Number(y), month, Number(d), time, text, match);
    }
  }
  if ((match = YEAR_NAMED_MONTH.exec(text))) {
    const month = monthOf(match[2]!);
    if (month !== null) {
      const [, y, , d, ...time] = match;
      return withTime(Number(y), month, Number(d), time, text, match);
    }
  }
  if ((match = NAMED_MONTH_FIRST.exec(text))) {
    const month = monthOf(match[1]!);
    if (month !== null) {
      const [, , d, h, mi, s, zone, y, ...time] = match;
      const inner = h === undefined ? time : [h, mi, s, undefined, undefined];
      const read = withTime(Number(y), month, Number(d), inner, text, match);
      return zone === undefined ? read : { ...read, rest: `${zone} ${read.rest}` };
    }
  }
  if ((match = COMPACT.exec(text))) {
    const [, y, mo, d, h, mi, s] = match;
    return withTime(Number(y), Number(mo), Number(d), [h, mi, s], text, match);
  }
  if ((match = SHORT_YEAR.exec(text))) {
    const [, a, , b, yy] = match;
    const year = Number(yy) + (Number(yy) >= 70 ? 1900 : 2000);
    const [day, month] = order === 'mdy' ? [Number(b), Number(a)] : [Number(a), Number(b)];
    return withTime(year, month, day, [], text, match);
  }
  if ((match = MONTH_YEAR.exec(text))) {
    // `before Aug-1996` (Nominet): the first of that month is the best the registry tells.
    const month = monthOf(match[1]!);
    if (month !== null) return withTime(Number(match[2]), month, 1, [], text, match);
  }
  return null;
}

function withTime(
  year: number,
  month: number,
  day: number,
  time: (string | undefined)[],
  text: string,
  match: RegExpExecArray,
): { parts: Parts; rest: string } {
  const [h, mi, s, fraction, meridiem] = time;
  let hour = h === undefined ? 0 : Number(h);
  if (meridiem !== undefined && meridiem !== null) {
    const pm = meridiem.toLowerCase() === 'p';
    if (hour === 12) hour = pm ? 12 : 0;
    else if (pm) hour += 12;
  }
  return {
    parts: {
      year,
      month,
      day,
      hour,
      minute: mi === undefined ? 0 : Number(mi),
      second: s === undefined ? 0 : Number(s),
      ms: fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000),
    },
    rest: text.slice(match.index + match[0].length),
  };
}

function monthOf(name: string): number | null {
  const index = MONTHS.indexOf(name.slice(0, 3).toLowerCase());
  return index === -1 ? null : index + 1;
}

function valid({ year, month, day, hour, minute, second }: Parts): boolean {
  if (month < 1 || month > 12 || day < 1 || hour > 24 || minute > 59 || second > 60) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The offset, in minutes east of UTC, that the text after a date names: `Z`, `+0900`, `-07:00`,
 * `(GMT+0:00)`, `UTC+8`, `(JST)`. Zero when it names none.
 */
function zoneOffset(rest: string): number {
  const text = rest.trim();
  const numeric = /^(?:\(?\s*(?:GMT|UTC|UT)?\s*)([+-])(\d{1,2})(?::?(\d{2}))?\b/i.exec(text);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? 0);
    return numeric[1] === '-' ? -minutes : minutes;
  }
  const named = /^\(?\s*([A-Z]{1,5})\b/.exec(text);
  return named !== null ? (ZONES[named[1]!] ?? 0) : 0;
}
