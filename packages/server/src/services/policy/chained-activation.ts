/**
 * An activation is honoured only as the audit chain backs it (services/authorize/chained-state.ts): the row must be
 * what its `ns.rule_activation.created` event says (pack, version, digest, target, mode, sector pack), that event's
 * envelope must be the one its audit entry commits to (SHA-256 digest, chained-events.ts), and an `active` row must
 * have no `ns.rule_activation.deactivated` event. Attacker assumption: the database but not the key: an activation
 * inserted by hand (a shadow pack turned decisive, a pack applied to another principal), a deactivated one set
 * active again, or its pointed-at version changed. Each is refused with 503 `audit_unavailable` (integrity
 * rule_activations, <id>, <column>), nothing decided.
 * What authorize leaves to `GET /v1/audit/verify` (check-policy-content.ts): a DELETED activation row (its events stay
 * in the chain, verify finds the missing row; authorize then simply does not see the pack).
 */
import type { Kysely } from 'kysely';
import type { Database, RuleActivationsTable } from '../../store/index.ts';
import { assertEnvelopesCommitted, digestOf, envelopeOf } from '../authorize/chained-events.ts';
import { integrityFailure, type ChainedStateCache } from '../authorize/chained-state.ts';
import { policyId } from './policy-ids.ts';

export const ACTIVATION_CREATED = 'ns.rule_activation.created';
export const ACTIVATION_DEACTIVATED = 'ns.rule_activation.deactivated';

export type ActivationRow = Pick<
  RuleActivationsTable,
  'activation_id' | 'pack_name' | 'version' | 'digest' | 'target_kind' | 'target_id' | 'mode' | 'state' | 'sector_pack'
>;

/** What an activation's created event restates: the event's `data`. */
export function activationEventData(row: ActivationRow): Record<string, unknown> {
  return {
    pack_id: policyId('rule_pack', row.pack_name),
    version: row.version,
    digest: row.digest,
    target_kind: row.target_kind,
    target_id: row.target_id,
    mode: row.mode,
    sector_pack: row.sector_pack,
  };
}

/** The first column of `row` its created event's data does not restate, or undefined. */
export function activationColumnProblem(row: ActivationRow, data: Record<string, unknown>): string | undefined {
  const expected = activationEventData(row);
  const columns: Record<string, string> = {
    pack_id: 'pack_name',
    version: 'version',
    digest: 'digest',
    target_kind: 'target_kind',
    target_id: 'target_id',
    mode: 'mode',
    sector_pack: 'sector_pack',
  };
  for (const [member, column] of Object.entries(columns)) {
    if (data[member] !== expected[member]) return column;
  }
  return undefined;
}

export interface ActivationWithEvents extends ActivationRow {
  /** the envelope text of its `ns.rule_activation.created` event, null when it has none */
  created_event: string | null;
  /** the envelope text of its `ns.rule_activation.deactivated` event, null when it has none */
  deactivated_event: string | null;
}

/** Throws integrityFailure (table `rule_activations`) unless the row is what its chained events say. */
export async function assertActivationChained(
  db: Kysely<Database>,
  cache: ChainedStateCache,
  row: ActivationWithEvents,
): Promise<void> {
  const key = [
    'rule_activation',
    ...Object.values(activationEventData(row)).map(String),
    row.activation_id,
    row.state,
    digestOf(row.created_event),
    digestOf(row.deactivated_event),
  ].join('\n');
  if (cache.has(key)) return;
  const fail = (column: string) => integrityFailure('rule_activations', row.activation_id, column);
  const created = row.created_event === null ? null : envelopeOf(row.created_event);
  if (!created || created.subject_ref !== row.activation_id || created.event_type !== ACTIVATION_CREATED) {
    throw fail('activation_id');
  }
  const differs = activationColumnProblem(row, created.data ?? {});
  if (differs) throw fail(differs);
  if ((row.state === 'active') !== (row.deactivated_event === null)) throw fail('state');
  const checks = [{ envelope: created, column: 'activation_id' }];
  if (row.deactivated_event !== null) {
    const deactivated = envelopeOf(row.deactivated_event);
    if (!deactivated || deactivated.subject_ref !== row.activation_id) throw fail('state');
    checks.push({ envelope: deactivated, column: 'state' });
  }
  await assertEnvelopesCommitted(db, checks, fail);
  cache.add(key);
}
