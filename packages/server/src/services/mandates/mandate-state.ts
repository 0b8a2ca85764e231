/**
 * A mandate's or allowance's state, derived, never stored (DESIGN-29 section 6): `revoked` when its grant is
 * revoked, `expired` past its `expires_at` (or its grant's `valid_until`), `used` when a single-use one was spent
 * (`used_by`), else `active`. In that order: a revoked mandate reads revoked whatever else holds.
 */
import type { Selectable } from 'kysely';
import type { GrantRow } from '../grants/grant-rows.ts';
import type { StoredScope } from '../grants/grant-scope.ts';
import type { MandatesTable } from '../../store/index.ts';

export type MandateState = 'active' | 'revoked' | 'expired' | 'used';

export function mandateState(row: Selectable<MandatesTable>, grant: GrantRow, nowIso: string): MandateState {
  if (grant.state !== 'active') return 'revoked';
  const until = (JSON.parse(grant.scope) as StoredScope).valid_until;
  if ((row.expires_at !== null && row.expires_at <= nowIso) || (until !== undefined && until <= nowIso)) {
    return 'expired';
  }
  if (row.used_by !== null) return 'used';
  return 'active';
}
