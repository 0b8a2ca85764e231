/**
 * How every reader sees a grant: its row plus its revocation, if any. INVARIANT: a grant is revoked iff it has a
 * `grant_revocations` row or its own `state` says so (rows written before migration 0005, or inserted directly by
 * fixtures); a revocation is never undone. Nothing else may read `grants.state` as the grant's state.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, GrantsTable } from '../../store/index.ts';

export type GrantRow = Selectable<GrantsTable>;

/** grants left-joined with their revocation; `executeTakeFirst`/`execute`, then `effectiveGrantRow` each row */
export function selectGrants(db: Kysely<Database> | Transaction<Database>) {
  return db
    .selectFrom('grants')
    .leftJoin('grant_revocations', 'grant_revocations.grant_id', 'grants.grant_id')
    .selectAll('grants')
    .select(['grant_revocations.revoked_at as cascade_revoked_at']);
}

/** A grant row with its effective state, `revoked_at` and `updated_at`. */
export function effectiveGrantRow(row: GrantRow & { cascade_revoked_at: string | null }): GrantRow {
  const { cascade_revoked_at: revokedAt, ...grant } = row;
  if (revokedAt === null) return grant;
  return {
    ...grant,
    state: 'revoked',
    revoked_at: grant.revoked_at ?? revokedAt,
    updated_at: revokedAt > grant.updated_at ? revokedAt : grant.updated_at,
  };
}
