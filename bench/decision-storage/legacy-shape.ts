/**
 * The shape before migration 0010, rebuilt beside the real table for the benchmark's baseline: `legacy_decisions`
 * has the columns and indexes `decisions` had, each row holding what the old writer stored (request, snapshot,
 * result and the signed map as JSON text, no record). The rows are the same decisions, so the difference is the
 * shape alone. `toLegacyShape` rewrites the real rows that way (guards dropped: the benchmark's own store), to time
 * the verifier on old rows.
 */
import { sql, type Kysely } from 'kysely';
import { decisionPartsOf } from '../../packages/server/src/services/decisions/stored-decision.ts';
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

/** Rewrites every decision row into the old shape (record null, the four JSON columns filled). */
export async function toLegacyShape(db: Kysely<Database>): Promise<void> {
  const triggers = (
    await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
      where type = 'trigger' and tbl_name = 'decisions'`.execute(db)
  ).rows;
  for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
  try {
    const rows = await db.selectFrom('decisions').selectAll().execute();
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .updateTable('decisions')
          .set({ ...legacyColumns(row), record: null })
          .where('seq', '=', row.seq)
          .execute();
      }
    });
  } finally {
    for (const t of triggers) await sql.raw(t.sql).execute(db);
  }
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
