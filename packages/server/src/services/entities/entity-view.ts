import type { Selectable } from 'kysely';
import type { EntitiesTable } from '../../store/index.ts';

export interface EntityView {
  entity_id: string;
  type: EntitiesTable['type'];
  display_name: string | null;
  public_key_jwk: Record<string, unknown> | null;
  key_thumbprint: string | null;
  state: EntitiesTable['state'];
  /** only when set: IANA zone of the principal's local time for rules */
  time_zone?: string;
  created_at: string;
  updated_at: string;
}

export function entityView(row: Selectable<EntitiesTable>): EntityView {
  return {
    entity_id: row.entity_id,
    type: row.type,
    display_name: row.display_name,
    public_key_jwk: row.public_key_jwk ? (JSON.parse(row.public_key_jwk) as Record<string, unknown>) : null,
    key_thumbprint: row.key_thumbprint,
    state: row.state,
    ...(row.time_zone ? { time_zone: row.time_zone } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
