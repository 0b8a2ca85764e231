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
import { checkSubjectRows } from './check-subject-rows.ts';
import type { RecordFindings } from './record-findings.ts';

const STATE_EVENTS = { 'ns.card_token.suspended': 'suspended', 'ns.card_token.activated': 'active' } as const;

export async function checkCardTokens(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  await checkSubjectRows(db, findings, pageSize, {
    table: 'card_tokens',
    idColumn: 'card_token_id',
    createdType: 'ns.card_token.created',
    stateEvents: STATE_EVENTS,
    subjectOf: (id) => id,
    idOfSubject: (subject) => subject,
    readRows: (db, page) => {
      const query = db
        .selectFrom('card_tokens')
        .select(['card_token_id', 'principal_entity_id', 'network', 'last4', 'state']);
      return 'ids' in page
        ? query.where('card_token_id', 'in', page.ids).execute()
        : query.where('card_token_id', '>', page.after).orderBy('card_token_id').limit(page.limit).execute();
    },
    idOf: (row) => row.card_token_id,
    problem: (row, { created, state }) => {
      const expected: Array<[string, unknown, unknown]> = [
        ['principal_entity_id', row.principal_entity_id, created.principal_entity_id],
        ['network', row.network, created.data.network],
        ['last4', row.last4, created.data.last4],
        ['state', row.state, state],
      ];
      return expected.find(([, actual, committed]) => actual !== committed)?.[0];
    },
  });
}
