/**
 * `POST /v1/rule-packs/{name}/versions/{version}/retire`: a published version is retired: it can no longer be
 * activated, and every active activation of it is deactivated IN THE SAME TRANSACTION (each with its event), so no
 * decision is ever made under a retired version once the retirement committed. Its document stays, served as signed.
 */
import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { ACTIVATION_COLUMNS } from './activation-view.ts';
import { deactivateIn } from './deactivate-activation.ts';
import { summaryOf, type DocumentSummary } from './document-summary.ts';
import { policyId, refOf } from './policy-ids.ts';
import { readVersion, updateDocumentRow } from './stored-documents.ts';

export async function retireRulePack(
  ctx: AppContext,
  credential: Credential | null,
  name: string,
  version: string,
): Promise<DocumentSummary> {
  const actor = actorOf(credential);
  await ctx.writer.run(async (trx) => {
    const row = await readVersion(trx, 'rule_pack', name, version);
    if (!row) throw new AarError('not_found', `rule pack \`${name}@${version}\` does not exist`);
    if (row.state !== 'published') {
      throw new AarError(
        'conflict',
        `rule pack \`${name}@${version}\` is ${row.state}: only a published version is retired`,
      );
    }
    await updateDocumentRow(trx, 'rule_pack', name, version, { state: 'retired', at: ctx.clock.now().toISOString() });
    const active = await trx
      .selectFrom('rule_activations')
      .select([...ACTIVATION_COLUMNS])
      .where('pack_name', '=', name)
      .where('version', '=', version)
      .where('state', '=', 'active')
      .orderBy('seq')
      .execute();
    for (const activation of active) await deactivateIn(trx, ctx, activation, actor, 'rule_pack_retired');
    await appendEvent(trx, ctx, {
      event_type: 'ns.rule_pack.retired',
      actor_entity_id: actor,
      principal_entity_id: null,
      subject_ref: refOf('rule_pack', name, version),
      reason_code: 'rule_pack_retired',
      data: {
        pack_id: policyId('rule_pack', name),
        version,
        digest: row.digest,
        deactivated: active.map((a) => a.activation_id),
      },
    });
  });
  return summaryOf('rule_pack', (await readVersion(ctx.store.db, 'rule_pack', name, version))!);
}
