/**
 * Every merchant against its `ns.merchant.created` event (check-events.ts checks the envelope against its entry):
 * the id, the category (what `blocked_merchant_categories` decides on) and the jurisdiction are the event's, and the
 * state is `active` (the service never changes a merchant after it is written). `display_name` and the timestamps are
 * in no chained record: shown, never decided on (docs/audit.md, "Outside the chain"). Attacker assumption: someone
 * with SQL access turns a blocked category (7995) into an allowed one. Every run checks them all, a page at a time.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';
import { subjectEvents } from './subject-events.ts';

export async function checkMerchants(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('merchants')
      .select(['merchant_id', 'category', 'jurisdiction', 'state'])
      .where('merchant_id', '>', after)
      .orderBy('merchant_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
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
