/**
 * `ns.mandate.revoked` for every mandate or allowance whose grant a revocation cascade just revoked
 * (write-revocation-cascade.ts calls this in its unit, after its own rows): the mandate's own revoke, a revoke of
 * its grant, or the revoke of any grant above it (the principal's grant). One indexed read (`mandates_root`: the
 * mandates of the revoked grant's tree, joined with this operation's revocation rows by grant id), so a cascade over
 * a tree without mandates costs one index probe. Each event has its own audit entry and names the cascade's
 * `audit_ref`, actor and reason.
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { appendEvent } from '../events/append-event.ts';

export interface CascadeFacts {
  root: string;
  audit_ref: string;
  reason_code: string;
  actor_entity_id: string | null;
}

export async function appendMandateRevocations(
  trx: Transaction<Database>,
  ctx: AppContext,
  cascade: CascadeFacts,
): Promise<number> {
  const rows = await trx
    .selectFrom('mandates as m')
    .innerJoin('grant_revocations as r', 'r.grant_id', 'm.grant_id')
    .select(['m.mandate_id', 'm.format', 'm.digest', 'm.grant_id', 'm.principal_entity_id'])
    .where('m.root_grant_id', '=', (eb) =>
      eb.selectFrom('grants').select('grants.root_grant_id').where('grants.grant_id', '=', cascade.root),
    )
    .where('r.operation_ref', '=', cascade.audit_ref)
    .orderBy('m.mandate_id')
    .execute();
  for (const row of rows) {
    await appendEvent(trx, ctx, {
      event_type: 'ns.mandate.revoked',
      actor_entity_id: cascade.actor_entity_id,
      principal_entity_id: row.principal_entity_id,
      subject_ref: row.mandate_id,
      reason_code: cascade.reason_code,
      data: {
        mandate_id: row.mandate_id,
        format: row.format,
        digest: row.digest,
        grant_id: row.grant_id,
        revocation_root: cascade.root,
        audit_ref: cascade.audit_ref,
      },
    });
  }
  return rows.length;
}
