/**
 * Exact comparison of ISO 8601 timestamps, written by hand because `Date.parse` accepts engine-specific formats and
 * truncates fractions to milliseconds: `valid_until` 10:00:00.0005 must stay later than `now` 10:00:00.000 in the
 * server, the SDK and the browser alike. Accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, nothing else.
 */
import { memoizeText } from './text-memo.ts';

export interface Instant {
  /** unix seconds (UTC) */
  seconds: number;
  /** 0..999_999_999 */
  nanos: number;
}

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parsed timestamps by text: decide reads the same `valid_until` and `now` texts over and over. Cached instants are
 * frozen, so a caller can never change what another one reads.
 */
const parseMemoized = memoizeText((text: string): Readonly<Instant> | undefined => {
  const parsed = parseUncached(text);
  return parsed && Object.freeze(parsed);
});

/** Parses a timestamp; undefined when it is not a valid ISO 8601 date-time with an offset. */
export function parseInstant(value: unknown): Instant | undefined {
  return typeof value === 'string' ? parseMemoized(value) : undefined;
}

function parseUncached(value: string): Instant | undefined {
  const m = ISO_PATTERN.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetSeconds = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetSeconds = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  const nanos = Number((m[7] ?? '').padEnd(9, '0'));
  return { seconds, nanos };
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  if (a.nanos !== b.nanos) return a.nanos < b.nanos ? -1 : 1;
  return 0;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`), integers only. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}
