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
import { changedSubjects, chunksOf } from './changed-subjects.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';
import { subjectEvents } from './subject-events.ts';

export async function checkMerchants(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  // incremental: only the rows whose events are new since the mark (changed-subjects.ts)
  const changed = await changedSubjects(db, findings.scope, ['ns.merchant.created']);
  const chunks =
    changed &&
    chunksOf(
      changed.map((s) => s.slice('ns:merchant:'.length)),
      pageSize,
    );
  let after = '';
  for (let chunk = 0; ; chunk++) {
    let query = db.selectFrom('merchants').select(['merchant_id', 'category', 'jurisdiction', 'state']);
    if (chunks) {
      if (chunk >= chunks.length) return;
      query = query.where('merchant_id', 'in', chunks[chunk]!);
    } else query = query.where('merchant_id', '>', after).orderBy('merchant_id').limit(pageSize);
    const rows = await query.execute();
    if (rows.length === 0) {
      if (chunks) continue;
      return;
    }
    after = rows[rows.length - 1]!.merchant_id;
    const subject = (id: string) => `ns:merchant:${id}`;
    const histories = await subjectEvents(
      db,
      rows.map((r) => subject(r.merchant_id)),
      'ns.merchant.created',
      'active',
      {},
    );
    const entries = await entriesById(
      db,
      [...histories.values()].flatMap((h) => (h.created ? [h.created.audit_ref] : [])),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'merchants', id: row.merchant_id };
      const created = histories.get(subject(row.merchant_id))?.created;
      const entry = created ? entries.get(created.audit_ref) : undefined;
      if (!created || !entry) {
        if (created && (await existsBeyond(db, created.audit_ref, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: 'merchant_id' });
        continue;
      }
      const expected: Array<[string, unknown, unknown]> = [
        ['merchant_id', row.merchant_id, created.data.merchant_id],
        ['category', row.category, created.data.category],
        ['jurisdiction', row.jurisdiction, created.data.jurisdiction],
        ['state', row.state, 'active'],
      ];
      const differs = expected.find(([, actual, committed]) => actual !== committed);
      if (differs) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail: differs[0] });
    }
  }
}
