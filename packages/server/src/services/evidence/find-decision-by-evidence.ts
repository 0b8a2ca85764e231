import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, DecisionsTable, Dialect } from '../../store/index.ts';

/**
 * The decision an evidence pack id belongs to: a decision's `evidence_refs` holds exactly one pack id, and migration
 * 0004 indexes `evidence_refs[0]` by expression. The expressions here must stay identical to the indexed ones.
 */
export async function findDecisionByEvidence(
  db: Kysely<Database>,
  dialect: Dialect,
  evidencePackId: string,
): Promise<Selectable<DecisionsTable> | undefined> {
  const firstRef =
    dialect === 'postgres'
      ? sql<string>`((evidence_refs::jsonb) ->> 0)`
      : sql<string>`json_extract(evidence_refs, '$[0]')`;
  return db.selectFrom('decisions').selectAll().where(firstRef, '=', evidencePackId).executeTakeFirst();
}
