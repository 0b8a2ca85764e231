/**
 * The first UTC day of a budget's current period (aar-decide/1.4.0, DESIGN-29 decision 2): what the server sums
 * `budget_spent` from. Periods are UTC calendar periods: `day` the UTC day, `week` the ISO week (starting Monday
 * 00:00 UTC, so a week may cross a month or a year), `month`, `year`; `total` has no start (every day since the
 * grant): null. Pure integer arithmetic on the parsed instant (no `Date`), so offsets and leap days are exact.
 * Attacker assumption: none (the server's own clock); a malformed argument throws rather than guess a period.
 */
import { parseInstant } from './instant.ts';
import { BUDGET_PERIODS } from './scope-fields.ts';
import type { BudgetPeriod } from './types.ts';

/** `YYYY-MM-DD`, the first UTC day of the period that holds `nowIso`; null for `total`. */
export function budgetPeriodStart(period: BudgetPeriod, nowIso: string): string | null {
  if (!(BUDGET_PERIODS as readonly unknown[]).includes(period)) {
    throw new RangeError(`budget period must be one of ${BUDGET_PERIODS.join(', ')}`);
  }
  const now = parseInstant(nowIso);
  if (!now) throw new RangeError('now must be an ISO 8601 timestamp with an offset');
  if (period === 'total') return null;
  const days = Math.floor(now.seconds / 86400);
  if (period === 'week') {
    // 1970-01-01 was a Thursday: (days + 3) mod 7 counts days since Monday
    const sinceMonday = (((days + 3) % 7) + 7) % 7;
    return dayText(civilFromDays(days - sinceMonday));
  }
  const [year, month, day] = civilFromDays(days);
  if (period === 'day') return dayText([year, month, day]);
  if (period === 'month') return dayText([year, month, 1]);
  return dayText([year, 1, 1]);
}

/** H. Hinnant's `civil_from_days`: the proleptic Gregorian date of a day count since 1970-01-01. */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return [year, month, day];
}

function dayText([year, month, day]: [number, number, number]): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
