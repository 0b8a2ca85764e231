import type { AppContext } from '../../app-context.ts';

export interface EvidenceRange {
  /** inclusive, ISO 8601 UTC */
  from: string;
  /** exclusive, ISO 8601 UTC */
  to: string;
  /** at most this many ids; one more is read so the caller can tell "exactly limit" from "more" */
  limit: number;
}

/**
 * The evidence pack ids of the decisions made (decision time `now`) in [from, to), oldest first: each decision has
 * exactly one pack id, `evidence_refs[0]`, whether or not its pack was assembled yet. Timestamps are stored as
 * ISO 8601 UTC text with milliseconds, so they compare as text. Returns up to `limit + 1` ids.
 */
export async function listEvidencePackIds(ctx: AppContext, range: EvidenceRange): Promise<string[]> {
  const rows = await ctx.store.db
    .selectFrom('decisions')
    .select('evidence_refs')
    .where('now', '>=', range.from)
    .where('now', '<', range.to)
    .orderBy('seq')
    .limit(range.limit + 1)
    .execute();
  return rows.map((r) => (JSON.parse(r.evidence_refs) as string[])[0]!).filter((id) => typeof id === 'string');
}
