/**
 * Every card token against its events (check-events.ts checks each envelope against its entry):
 * `ns.card_token.created` names its principal (the envelope's) and restates `network` and `last4` (erasure nulls
 * both the row's and the envelope's `last4`), and the state is the one its last `ns.card_token.suspended` /
 * `ns.card_token.activated` event left it in. Attacker assumption: someone with SQL access reactivates a suspended
 * token or moves it to another principal. `network_token` (the processor's token, personal data kept out of events,
 * which outlive erasure), `expires` and the timestamps are in no chained record (docs/audit.md, "Outside the chain").
 * A full run checks every row, a page at a time; an incremental run, the rows whose events are new since its mark
 * (changed-subjects.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { changedSubjects, chunksOf } from './changed-subjects.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';
import { subjectEvents } from './subject-events.ts';

const STATE_EVENTS = { 'ns.card_token.suspended': 'suspended', 'ns.card_token.activated': 'active' } as const;

export async function checkCardTokens(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  // incremental: only the rows whose events are new since the mark (changed-subjects.ts)
  const changed = await changedSubjects(db, findings.scope, [
    ...Object.keys({ 'ns.card_token.created': 1, ...STATE_EVENTS }),
  ]);
  const chunks =
    changed &&
    chunksOf(
      changed.map((s) => s),
      pageSize,
    );
  let after = '';
  for (let chunk = 0; ; chunk++) {
    let query = db
      .selectFrom('card_tokens')
      .select(['card_token_id', 'principal_entity_id', 'network', 'last4', 'state']);
    if (chunks) {
      if (chunk >= chunks.length) return;
      query = query.where('card_token_id', 'in', chunks[chunk]!);
    } else query = query.where('card_token_id', '>', after).orderBy('card_token_id').limit(pageSize);
    const rows = await query.execute();
    if (rows.length === 0) {
      if (chunks) continue;
      return;
    }
    after = rows[rows.length - 1]!.card_token_id;
    const histories = await subjectEvents(
      db,
      rows.map((r) => r.card_token_id),
      'ns.card_token.created',
      'active',
      STATE_EVENTS,
    );
    const entries = await entriesById(
      db,
      [...histories.values()].flatMap((h) => (h.created ? [h.created.audit_ref] : [])),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'card_tokens', id: row.card_token_id };
      const history = histories.get(row.card_token_id);
      const entry = history?.created ? entries.get(history.created.audit_ref) : undefined;
      if (!history?.created || !entry) {
        if (history?.created && (await existsBeyond(db, history.created.audit_ref, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: 'card_token_id' });
        continue;
      }
      const created = history.created;
      const expected: Array<[string, unknown, unknown]> = [
        ['principal_entity_id', row.principal_entity_id, created.principal_entity_id],
        ['network', row.network, created.data.network],
        ['last4', row.last4, created.data.last4],
        ['state', row.state, history.state],
      ];
      const differs = expected.find(([, actual, committed]) => actual !== committed);
      if (differs) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail: differs[0] });
    }
  }
}
