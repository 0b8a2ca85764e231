/**
 * Report schedules as the Reports page lists them. Attacker assumption: untrusted JSON; a row without an id is left
 * out, and a cadence is shown only from the members the API documents.
 */
type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export interface ScheduleRow {
  schedule_id: string;
  every: string | undefined;
  frameworks: string[];
  next_run_at: string | undefined;
  state: string | undefined;
}

function every(row: Json): string | undefined {
  const seconds = row.interval_seconds;
  if (typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds > 0) {
    if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
    if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
    return `${seconds} s`;
  }
  return str(row.every) ?? str(row.interval) ?? str(row.cadence) ?? str(row.frequency) ?? str(row.cron);
}

export function readSchedules(answer: unknown): ScheduleRow[] {
  const rows = Array.isArray(answer) ? answer : isRecord(answer) && Array.isArray(answer.items) ? answer.items : [];
  return rows.flatMap((row) => {
    if (!isRecord(row)) return [];
    const schedule_id = str(row.schedule_id) ?? str(row.id);
    if (schedule_id === undefined) return [];
    const frameworks = Array.isArray(row.frameworks)
      ? row.frameworks.filter((f): f is string => typeof f === 'string')
      : [];
    return [
      {
        schedule_id,
        every: every(row),
        frameworks,
        next_run_at: str(row.next_run_at) ?? str(row.next_due_at),
        state: str(row.state),
      },
    ];
  });
}
