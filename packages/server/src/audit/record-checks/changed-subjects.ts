/**
 * What an incremental run (`from=verified`, audit/verify/verification-marks.ts) must look at in a table whose rows are
 * made and changed by events: the subjects of the events after the mark's `events` seq, of the given types. A full run
 * (`after.events` 0) answers undefined: every row. Rows whose events all lie below the mark were checked by the run
 * that made it; an edit of one of them since is the next full run's to find, as for every record below a mark.
 * One SELECT over `events` by `seq` (its primary key): proportional to what was appended since the mark.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { RecordScope } from './record-findings.ts';

export async function changedSubjects(
  db: Kysely<Database>,
  scope: RecordScope,
  eventTypes: readonly string[],
): Promise<string[] | undefined> {
  if (scope.after.events === 0) return undefined;
  const rows = await db
    .selectFrom('events')
    .select('subject_ref')
    .where('seq', '>', scope.after.events)
    .where('event_type', 'in', [...eventTypes])
    .execute();
  return [...new Set(rows.map((r) => r.subject_ref))];
}

/** Chunks of `ids` for `in (…)` lists (well under both databases' parameter limits). */
export function chunksOf<T>(ids: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}
