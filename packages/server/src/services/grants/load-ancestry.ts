import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { effectiveGrantRow, selectGrants, type GrantRow } from './grant-rows.ts';

/** Far above the depth the grants API allows: a longer walk means a corrupted store, refused as such. */
const MAX_WALK = 64;

/**
 * The grant `grantId` and its ancestors, ROOT FIRST, with their effective states; undefined when `grantId` does not
 * exist. Inside a write unit (as every writer calls it), batches of every instance are serialised by the audit tip lock
 * (audit-appender.ts), so a revocation that committed before this batch is seen, and one that commits after it sees
 * what this batch wrote.
 */
export async function loadAncestry(trx: Kysely<Database>, grantId: string): Promise<GrantRow[] | undefined> {
  const chain: GrantRow[] = [];
  let next: string | null = grantId;
  while (next !== null) {
    if (chain.length >= MAX_WALK) throw new Error(`the ancestry of grant ${grantId} does not end`);
    const row = await selectGrants(trx).where('grants.grant_id', '=', next).executeTakeFirst();
    if (!row) {
      if (chain.length === 0) return undefined;
      throw new Error(`grant ${chain[0]?.grant_id ?? grantId} names a parent that does not exist`);
    }
    chain.unshift(effectiveGrantRow(row));
    next = row.parent_grant_id;
  }
  return chain;
}
