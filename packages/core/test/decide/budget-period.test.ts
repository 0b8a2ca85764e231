// budgetPeriodStart (aar-decide/1.4.0): the first UTC day of a budget's current period, at the period edges.
import { describe, expect, it } from 'vitest';
import { budgetPeriodStart } from '../../src/index.ts';

describe('budgetPeriodStart', () => {
  it('day: the UTC day, whatever the offset the timestamp is written in', () => {
    expect(budgetPeriodStart('day', '2026-04-15T10:00:00Z')).toBe('2026-04-15');
    expect(budgetPeriodStart('day', '2026-04-15T23:59:59.999999999Z')).toBe('2026-04-15');
    expect(budgetPeriodStart('day', '2026-04-16T00:00:00Z')).toBe('2026-04-16');
    // 01:30 in Berlin (+02:00) is still the previous UTC day
    expect(budgetPeriodStart('day', '2026-04-16T01:30:00+02:00')).toBe('2026-04-15');
    expect(budgetPeriodStart('day', '2026-04-15T22:30:00-02:00')).toBe('2026-04-16');
  });

  it('week: the ISO week starts Monday 00:00 UTC', () => {
    // 2026-04-15 is a Wednesday
    expect(budgetPeriodStart('week', '2026-04-15T10:00:00Z')).toBe('2026-04-13');
    expect(budgetPeriodStart('week', '2026-04-13T00:00:00Z')).toBe('2026-04-13');
    expect(budgetPeriodStart('week', '2026-04-12T23:59:59Z')).toBe('2026-04-06');
    expect(budgetPeriodStart('week', '2026-04-19T23:59:59Z')).toBe('2026-04-13');
  });

  it('week: a week that crosses a month and a year starts in the earlier one', () => {
    // Thursday 2026-01-01: ISO week 1 of 2026 began Monday 2025-12-29
    expect(budgetPeriodStart('week', '2026-01-01T12:00:00Z')).toBe('2025-12-29');
    expect(budgetPeriodStart('week', '2026-01-04T23:59:59Z')).toBe('2025-12-29');
    expect(budgetPeriodStart('week', '2026-01-05T00:00:00Z')).toBe('2026-01-05');
    // Sunday 2026-03-01: the week began Monday 2026-02-23
    expect(budgetPeriodStart('week', '2026-03-01T08:00:00Z')).toBe('2026-02-23');
    // a leap year: Sunday 2032-02-29 is in the week of Monday 2032-02-23; Monday 2032-03-01 starts the next
    expect(budgetPeriodStart('week', '2032-02-29T12:00:00Z')).toBe('2032-02-23');
    expect(budgetPeriodStart('week', '2032-03-01T00:00:00Z')).toBe('2032-03-01');
    // 1970-01-01 was a Thursday (the day count's zero)
    expect(budgetPeriodStart('week', '1970-01-01T00:00:00Z')).toBe('1969-12-29');
  });

  it('month: the first of the UTC month, leap February included', () => {
    expect(budgetPeriodStart('month', '2026-04-15T10:00:00Z')).toBe('2026-04-01');
    expect(budgetPeriodStart('month', '2028-02-29T23:59:59Z')).toBe('2028-02-01');
    expect(budgetPeriodStart('month', '2028-03-01T00:00:00Z')).toBe('2028-03-01');
    expect(budgetPeriodStart('month', '2026-05-01T00:30:00+01:00')).toBe('2026-04-01');
  });

  it('year: January 1 of the UTC year, the last second of a year and the first of the next', () => {
    expect(budgetPeriodStart('year', '2026-12-31T23:59:59.999Z')).toBe('2026-01-01');
    expect(budgetPeriodStart('year', '2027-01-01T00:00:00Z')).toBe('2027-01-01');
    expect(budgetPeriodStart('year', '2027-01-01T00:30:00+01:00')).toBe('2026-01-01');
    expect(budgetPeriodStart('year', '2000-02-29T00:00:00Z')).toBe('2000-01-01');
  });

  it('total: no start (every day since the grant)', () => {
    expect(budgetPeriodStart('total', '2026-04-15T10:00:00Z')).toBeNull();
  });

  it('refuses an unknown period or a timestamp that does not parse, rather than guess', () => {
    expect(() => budgetPeriodStart('fortnight' as never, '2026-04-15T10:00:00Z')).toThrow(RangeError);
    expect(() => budgetPeriodStart('day', '2026-04-15')).toThrow(RangeError);
    expect(() => budgetPeriodStart('total', 'yesterday')).toThrow(RangeError);
  });

  it('agrees with Date on every day of four years, for every period', () => {
    const start = Date.UTC(2027, 0, 1);
    for (let d = 0; d < 4 * 366; d++) {
      const at = new Date(start + d * 86_400_000 + 43_200_000);
      const iso = at.toISOString();
      const ymd = (t: Date) => t.toISOString().slice(0, 10);
      expect(budgetPeriodStart('day', iso)).toBe(ymd(at));
      expect(budgetPeriodStart('month', iso)).toBe(`${ymd(at).slice(0, 7)}-01`);
      expect(budgetPeriodStart('year', iso)).toBe(`${ymd(at).slice(0, 4)}-01-01`);
      const sinceMonday = (at.getUTCDay() + 6) % 7;
      expect(budgetPeriodStart('week', iso)).toBe(ymd(new Date(at.getTime() - sinceMonday * 86_400_000)));
    }
  });
});
