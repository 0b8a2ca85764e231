/**
 * Report periods: what a schedule's `every` means and which half-open UTC interval [start, end) each report covers.
 * Hand-written (no date library): calendar arithmetic in UTC only, with Date.UTC, so it gives the same periods on
 * every instance, in the SDK and in the browser, whatever the host's time zone.
 * - `hour`, `day`, `week` (ISO week: Monday 00:00 UTC), `month` (the first of the month, 00:00 UTC): calendar
 *   periods, aligned whatever the schedule's start.
 * - an ISO 8601 duration of days, hours, minutes and seconds (`PT6H`, `P2D`, `P1W`, `P1DT12H`): periods of that fixed
 *   length back to back from the schedule's anchor. No years or months in a duration: their length varies; `month`
 *   is the calendar period.
 * INVARIANT: no period is shorter than one hour (`MIN_PERIOD_MS`); anything more frequent is refused naming the field
 * (the issue: "a report schedule that would run more often than once an hour is refused").
 */
import { fieldError } from '../errors/aar-error.ts';

export const CALENDAR_UNITS = ['hour', 'day', 'week', 'month'] as const;
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];

export const MIN_PERIOD_MS = 3_600_000;
/** the longest fixed interval: a little over a year (a longer one is a typo more often than a wish) */
export const MAX_PERIOD_MS = 366 * 86_400_000;

export type Every = { kind: 'calendar'; unit: CalendarUnit } | { kind: 'interval'; ms: number };

export interface Period {
  start: Date;
  end: Date;
}

const DURATION = /^P(?:(\d{1,4})W)?(?:(\d{1,4})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,8})M)?(?:(\d{1,10})S)?)?$/;

/** Parses `every`; 400 `invalid_request` naming `path` when it is not one, or when it is more often than hourly. */
export function parseEvery(value: unknown, path = '/every'): Every {
  if (typeof value !== 'string') throw fieldError('invalid_request', path, 'must be a string');
  if ((CALENDAR_UNITS as readonly string[]).includes(value)) return { kind: 'calendar', unit: value as CalendarUnit };
  const m = DURATION.exec(value);
  if (!m || value === 'P' || value.endsWith('T')) {
    throw fieldError(
      'invalid_request',
      path,
      'must be `hour`, `day`, `week`, `month` or an ISO 8601 duration of weeks, days, hours, minutes, seconds (`PT6H`)',
    );
  }
  const [w, d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number];
  const ms = ((((w * 7 + d) * 24 + h) * 60 + min) * 60 + s) * 1000;
  if (ms < MIN_PERIOD_MS) {
    throw fieldError(
      'invalid_request',
      path,
      `\`${value}\` would run more often than once an hour: the shortest period is one hour (\`hour\` or \`PT1H\`)`,
    );
  }
  if (ms > MAX_PERIOD_MS) throw fieldError('invalid_request', path, 'must be at most 366 days (or `month`)');
  return { kind: 'interval', ms };
}

/** The anchor of an interval schedule that names none: `at`, down to the whole hour (UTC). */
export function defaultAnchor(at: Date): Date {
  return new Date(Math.floor(at.getTime() / MIN_PERIOD_MS) * MIN_PERIOD_MS);
}

function calendarStart(unit: CalendarUnit, at: Date): Date {
  const y = at.getUTCFullYear();
  const mo = at.getUTCMonth();
  const d = at.getUTCDate();
  switch (unit) {
    case 'hour':
      return new Date(Date.UTC(y, mo, d, at.getUTCHours()));
    case 'day':
      return new Date(Date.UTC(y, mo, d));
    case 'week': {
      // getUTCDay: Sunday 0 .. Saturday 6; ISO weeks start on Monday
      const back = (at.getUTCDay() + 6) % 7;
      return new Date(Date.UTC(y, mo, d - back));
    }
    case 'month':
      return new Date(Date.UTC(y, mo, 1));
  }
}

function calendarNext(unit: CalendarUnit, start: Date): Date {
  const y = start.getUTCFullYear();
  const mo = start.getUTCMonth();
  const d = start.getUTCDate();
  switch (unit) {
    case 'hour':
      return new Date(start.getTime() + MIN_PERIOD_MS);
    case 'day':
      return new Date(Date.UTC(y, mo, d + 1));
    case 'week':
      return new Date(Date.UTC(y, mo, d + 7));
    case 'month':
      return new Date(Date.UTC(y, mo + 1, 1));
  }
}

/**
 * The period holding `at`. For an interval, periods run back to back from `anchor`; an instant before the anchor
 * gets the first period (the one starting at the anchor).
 */
export function periodContaining(every: Every, at: Date, anchor: Date): Period {
  if (every.kind === 'calendar') {
    const start = calendarStart(every.unit, at);
    return { start, end: calendarNext(every.unit, start) };
  }
  const offset = Math.max(0, at.getTime() - anchor.getTime());
  const start = anchor.getTime() + Math.floor(offset / every.ms) * every.ms;
  return { start: new Date(start), end: new Date(start + every.ms) };
}

/** The period right after `period` (which must be one of `every`'s). */
export function nextPeriod(every: Every, period: Period): Period {
  if (every.kind === 'calendar') return { start: period.end, end: calendarNext(every.unit, period.end) };
  return { start: period.end, end: new Date(period.end.getTime() + every.ms) };
}
