/**
 * The walk that entities, card tokens and merchants share: their rows a page at a time (a full run) or the rows
 * whose events are new since the mark (an incremental run, changed-subjects.ts), each against its creation event and
 * the state its state events leave it in (subject-events.ts). A row with no creation event, or one whose entry is not
 * in the log, is `record_unanchored` (unless its entry lies beyond the tip read: a concurrent append, the next run's);
 * otherwise the table's own `problem` names the column that differs from what the chain says (`record_mismatch`).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { changedSubjects, chunksOf } from './changed-subjects.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';
import { subjectEvents, type SubjectHistory } from './subject-events.ts';

export interface SubjectTable<Row> {
  table: 'entities' | 'card_tokens' | 'merchants';
  /** the id column, named by a row without a creation event */
  idColumn: string;
  createdType: string;
  /** event type -> the state it leaves the subject in (the creation leaves it `active`) */
  stateEvents: Readonly<Record<string, string>>;
  /** the events' `subject_ref` of a row id, and back */
  subjectOf(id: string): string;
  idOfSubject(subject: string): string;
  /** the rows of these ids, or the page of ids after `after` in id order */
  readRows(db: Kysely<Database>, page: { ids: string[] } | { after: string; limit: number }): Promise<Row[]>;
  idOf(row: Row): string;
  /** the column that differs from what the chain says, if any */
  problem(
    row: Row,
    history: SubjectHistory & { created: NonNullable<SubjectHistory['created']> },
  ): Promise<string | undefined> | string | undefined;
}

export async function checkSubjectRows<Row>(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
  spec: SubjectTable<Row>,
): Promise<void> {
  const changed = await changedSubjects(db, findings.scope, [spec.createdType, ...Object.keys(spec.stateEvents)]);
  const chunks = changed && chunksOf(changed.map(spec.idOfSubject), pageSize);
  let after = '';
  for (let chunk = 0; ; chunk++) {
    if (chunks && chunk >= chunks.length) return;
    const rows = await spec.readRows(db, chunks ? { ids: chunks[chunk]! } : { after, limit: pageSize });
    if (rows.length === 0) {
      if (chunks) continue;
      return;
    }
    after = spec.idOf(rows[rows.length - 1]!);
    const histories = await subjectEvents(
      db,
      rows.map((r) => spec.subjectOf(spec.idOf(r))),
      spec.createdType,
      'active',
      spec.stateEvents,
    );
    const entries = await entriesById(
      db,
      [...histories.values()].flatMap((h) => (h.created ? [h.created.audit_ref] : [])),
      findings.size,
    );
    for (const row of rows) {
      const id = spec.idOf(row);
      const record = { table: spec.table, id };
      const history = histories.get(spec.subjectOf(id));
      const created = history?.created;
      const entry = created ? entries.get(created.audit_ref) : undefined;
      if (!history || !created || !entry) {
        if (created && (await existsBeyond(db, created.audit_ref, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: spec.idColumn });
        continue;
      }
      const detail = await spec.problem(row, { ...history, created });
      if (detail) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail });
    }
  }
}
