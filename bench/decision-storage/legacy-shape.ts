/**
 * The shape before issue 10, rebuilt beside the real tables for the benchmark's baseline: `legacy_decisions` has the
 * columns and indexes `decisions` had, each row holding what the old writer stored (request, snapshot, result and the
 * signed map as JSON text, no record), and `legacy_events` the events with every decision event's envelope text. The
 * rows are the same decisions and events, so the difference is the shape alone. `toLegacyShape` rewrites the real
 * rows that way (guards dropped: the benchmark's own store), to time the verifier on old rows.
 */
import { sql, type Kysely } from 'kysely';
import { decisionPartsOf } from '../../packages/server/src/services/decisions/stored-decision.ts';
import { decisionEnvelopes, isDecisionDerived } from '../../packages/server/src/services/events/decision-envelope.ts';
import type { Database } from '../../packages/server/src/store/index.ts';

const PAGE = 500;

/** Creates and fills `legacy_decisions` from `decisions`. */
export async function buildLegacyTable(db: Kysely<Database>): Promise<number> {
  await sql`create table legacy_decisions as select * from decisions where 0`.execute(db);
  await sql`alter table legacy_decisions drop column record`.execute(db);
  await sql`create unique index legacy_decisions_id on legacy_decisions (policy_decision_id)`.execute(db);
  await sql`create unique index legacy_decisions_map on legacy_decisions (decision_map_id)`.execute(db);
  await sql`create index legacy_decisions_actor on legacy_decisions (actor_entity_id, seq)`.execute(db);
  await sql`create index legacy_decisions_principal on legacy_decisions (principal_entity_id, seq)`.execute(db);
  await sql`create index legacy_decisions_evidence on legacy_decisions (json_extract(evidence_refs, '$[0]'))`.execute(
    db,
  );
  await sql`create index legacy_decisions_audit_ref on legacy_decisions (audit_ref)`.execute(db);
  let copied = 0;
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('decisions')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.seq);
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        const { record: _record, ...columns } = row;
        await trx
          .insertInto('legacy_decisions' as 'decisions')
          .values({ ...columns, ...legacyColumns(row) } as never)
          .execute();
      }
    });
    copied += rows.length;
  }
  return copied;
}

/**
 * Creates and fills `legacy_events` from `events`, each decision event with the envelope text the old writer stored
 * (the same text its derivation gives back: the writer checked that), and the indexes `events` has.
 */
export async function buildLegacyEvents(db: Kysely<Database>): Promise<{ copied: number; filled: number }> {
  await sql`create table legacy_events as select * from events where 0`.execute(db);
  await sql`create unique index legacy_events_id on legacy_events (event_id)`.execute(db);
  await sql`create index legacy_events_type on legacy_events (event_type)`.execute(db);
  await sql`create index legacy_events_operation on legacy_events (operation_ref, subject_ref)
    where operation_ref is not null`.execute(db);
  let copied = 0;
  let filled = 0;
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('events')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.seq);
    const envelopes = await envelopeTexts(db, rows);
    filled += envelopes.size;
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .insertInto('legacy_events' as 'events')
          .values({ ...row, envelope: envelopes.get(row.event_id) ?? row.envelope } as never)
          .execute();
      }
    });
    copied += rows.length;
  }
  return { copied, filled };
}

/**
 * Rewrites every decision row into the old shape (record null, the four JSON columns filled) and stores the
 * envelope text of every decision event.
 */
export async function toLegacyShape(db: Kysely<Database>): Promise<void> {
  const triggers = (
    await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
      where type = 'trigger' and tbl_name in ('decisions', 'events')`.execute(db)
  ).rows;
  for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
  try {
    const events = await db.selectFrom('events').selectAll().where('envelope', '=', '').execute();
    const envelopes = await envelopeTexts(db, events);
    const rows = await db.selectFrom('decisions').selectAll().execute();
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .updateTable('decisions')
          .set({ ...legacyColumns(row), record: null })
          .where('seq', '=', row.seq)
          .execute();
      }
      for (const [eventId, envelope] of envelopes) {
        await trx.updateTable('events').set({ envelope }).where('event_id', '=', eventId).execute();
      }
    });
  } finally {
    for (const t of triggers) await sql.raw(t.sql).execute(db);
  }
}

/** The envelope text of each decision event stored without one, as the old writer stored it. */
async function envelopeTexts(
  db: Kysely<Database>,
  rows: ReadonlyArray<{
    event_id: string;
    event_type: string;
    occurred_at: string;
    subject_ref: string;
    envelope: string;
    operation_ref: string | null;
  }>,
): Promise<Map<string, string>> {
  const derived = await decisionEnvelopes(db, rows.filter(isDecisionDerived));
  const out = new Map<string, string>();
  for (const [eventId, envelope] of derived) if (envelope) out.set(eventId, JSON.stringify(envelope));
  return out;
}

function legacyColumns(row: Parameters<typeof decisionPartsOf>[0]) {
  const parts = decisionPartsOf(row);
  return {
    request: JSON.stringify(parts.request),
    snapshot: JSON.stringify(parts.snapshot),
    result: JSON.stringify(parts.result),
    decision_map: JSON.stringify(parts.decision_map),
  };
}
