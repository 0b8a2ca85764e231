/** An activation as the API shows it (CONTRACT section 19: `{ pack_id, version, target, mode }` and its state). */
import type { RuleActivationsTable } from '../../store/index.ts';
import { policyId } from './policy-ids.ts';

export type ActivationTarget = { deployment: true } | { principal_entity_id: string } | { grant_id: string };

export interface ActivationView {
  activation_id: string;
  pack_id: string;
  version: string;
  digest: string;
  target: ActivationTarget;
  mode: 'enforce' | 'shadow';
  state: 'active' | 'deactivated';
  /** `ns:sector_pack:<name>@<version>` when a sector pack's apply made it */
  sector_pack: string | null;
  created_at: string;
  updated_at: string;
}

export type ActivationRowView = Pick<
  RuleActivationsTable,
  | 'activation_id'
  | 'pack_name'
  | 'version'
  | 'digest'
  | 'target_kind'
  | 'target_id'
  | 'mode'
  | 'state'
  | 'sector_pack'
  | 'created_at'
  | 'updated_at'
>;

export function targetOf(kind: RuleActivationsTable['target_kind'], id: string | null): ActivationTarget {
  if (kind === 'deployment') return { deployment: true };
  if (kind === 'principal') return { principal_entity_id: id ?? '' };
  return { grant_id: id ?? '' };
}

export function activationView(row: ActivationRowView): ActivationView {
  return {
    activation_id: row.activation_id,
    pack_id: policyId('rule_pack', row.pack_name),
    version: row.version,
    digest: row.digest,
    target: targetOf(row.target_kind, row.target_id),
    mode: row.mode,
    state: row.state,
    sector_pack: row.sector_pack,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const ACTIVATION_COLUMNS = [
  'activation_id',
  'pack_name',
  'version',
  'digest',
  'target_kind',
  'target_id',
  'mode',
  'state',
  'sector_pack',
  'created_at',
  'updated_at',
] as const;
