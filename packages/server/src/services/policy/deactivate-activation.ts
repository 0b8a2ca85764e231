/**
 * `DELETE /v1/rule-activations/{id}` and a pack version's retirement: an active activation becomes deactivated,
 * once and for good, with its `ns.rule_activation.deactivated` event. Deleting a deactivated activation changes
 * nothing and writes nothing (the answer is the activation as it is).
 */
import { AarError } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { appendEvent } from '../events/append-event.ts';
import { ACTIVATION_COLUMNS, activationView, type ActivationRowView, type ActivationView } from './activation-view.ts';
import { ACTIVATION_DEACTIVATED } from './chained-activation.ts';
import { policyId } from './policy-ids.ts';

export async function deactivateActivation(ctx: AppContext, id: string, actor: string | null): Promise<ActivationView> {
  return ctx.writer.run(async (trx) => {
    const row = await trx
      .selectFrom('rule_activations')
      .select([...ACTIVATION_COLUMNS])
      .where('activation_id', '=', id)
      .executeTakeFirst();
    if (!row) throw new AarError('not_found', `activation \`${id}\` does not exist`);
    if (row.state !== 'active') return activationView(row);
    return activationView(await deactivateIn(trx, ctx, row, actor, 'rule_activation_deleted'));
  });
}

export async function deactivateIn(
  trx: Transaction<Database>,
  ctx: AppContext,
  row: ActivationRowView,
  actor: string | null,
  reason: 'rule_activation_deleted' | 'rule_pack_retired',
): Promise<ActivationRowView> {
  const now = ctx.clock.now().toISOString();
  await trx
    .updateTable('rule_activations')
    .set({ state: 'deactivated', updated_at: now })
    .where('activation_id', '=', row.activation_id)
    .execute();
  const principal =
    row.target_kind === 'principal'
      ? row.target_id
      : row.target_kind === 'grant'
        ? ((
            await trx
              .selectFrom('grants')
              .select('principal_entity_id')
              .where('grant_id', '=', row.target_id!)
              .executeTakeFirst()
          )?.principal_entity_id ?? null)
        : null;
  await appendEvent(trx, ctx, {
    event_type: ACTIVATION_DEACTIVATED,
    actor_entity_id: actor,
    principal_entity_id: principal,
    subject_ref: row.activation_id,
    reason_code: reason,
    data: { pack_id: policyId('rule_pack', row.pack_name), version: row.version, digest: row.digest },
  });
  return { ...row, state: 'deactivated', updated_at: now };
}
