/**
 * Report schedules as the Reports page lists them (GET /v1/reports/schedules, docs/reports.md). Attacker assumption:
 * untrusted JSON; a row without an id is left out.
 */
type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export interface ScheduleRow {
  schedule_id: string;
  every: string | undefined;
  frameworks: string[];
  description: string | undefined;
  /** the next period it will report on, `[start, end)` */
  next_start: string | undefined;
  next_end: string | undefined;
  deleted: boolean;
}

const CALENDAR: Record<string, string> = {
  hour: 'hour',
  day: 'day',
  week: 'week (from Monday)',
  month: 'month (from the 1st)',
};

/** `every` in words: a calendar period, or an ISO 8601 duration (`PT6H`) as given. */
function every(row: Json): string | undefined {
  const value = str(row.every);
  return value === undefined ? undefined : (CALENDAR[value] ?? value);
}

export function readSchedules(answer: unknown): ScheduleRow[] {
  const rows = isRecord(answer) && Array.isArray(answer.items) ? answer.items : [];
  return rows.flatMap((row) => {
    if (!isRecord(row)) return [];
    const schedule_id = str(row.schedule_id);
    if (schedule_id === undefined) return [];
    const frameworks = Array.isArray(row.frameworks)
      ? row.frameworks.filter((f): f is string => typeof f === 'string')
      : [];
    const next = isRecord(row.next_period) ? row.next_period : {};
    return [
      {
        schedule_id,
        every: every(row),
        frameworks,
        description: str(row.description),
        next_start: str(next.start),
        next_end: str(next.end),
        deleted: str(row.deleted_at) !== undefined,
      },
    ];
  });
}
