/**
 * Every merchant against its `ns.merchant.created` event (check-events.ts checks the envelope against its entry):
 * the id, the category (what `blocked_merchant_categories` decides on) and the jurisdiction are the event's, and the
 * state is `active` (the service never changes a merchant after it is written). `display_name` and the timestamps are
 * in no chained record: shown, never decided on (docs/audit.md, "Outside the chain"). Attacker assumption: someone
 * with SQL access turns a blocked category (7995) into an allowed one. A full run checks every row, a page at a
 * time; an incremental run, the rows whose events are new since its mark (changed-subjects.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { checkSubjectRows } from './check-subject-rows.ts';
import type { RecordFindings } from './record-findings.ts';

const SUBJECT_PREFIX = 'ns:merchant:';

export async function checkMerchants(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  await checkSubjectRows(db, findings, pageSize, {
    table: 'merchants',
    idColumn: 'merchant_id',
    createdType: 'ns.merchant.created',
    stateEvents: {},
    subjectOf: (id) => `${SUBJECT_PREFIX}${id}`,
    idOfSubject: (subject) => subject.slice(SUBJECT_PREFIX.length),
    readRows: (db, page) => {
      const query = db.selectFrom('merchants').select(['merchant_id', 'category', 'jurisdiction', 'state']);
      return 'ids' in page
        ? query.where('merchant_id', 'in', page.ids).execute()
        : query.where('merchant_id', '>', page.after).orderBy('merchant_id').limit(page.limit).execute();
    },
    idOf: (row) => row.merchant_id,
    problem: (row, { created }) => {
      const expected: Array<[string, unknown, unknown]> = [
        ['merchant_id', row.merchant_id, created.data.merchant_id],
        ['category', row.category, created.data.category],
        ['jurisdiction', row.jurisdiction, created.data.jurisdiction],
        ['state', row.state, 'active'],
      ];
      return expected.find(([, actual, committed]) => actual !== committed)?.[0];
    },
  });
}
