/**
 * Announces approvals that lapsed undecided: one `ns.approval.expired` per pending approval past its `expires_at`
 * (data `{ policy_decision_id, previous_state: "pending", new_state: "expired" }`, reason `approval_expired`), so the
 * principal's app can withdraw the request it shows.
 *
 * The row is not rewritten: the approvals table is write-once apart from the decided transitions (migration 0007),
 * and every reader already treats a pending approval past `expires_at` as expired (approval-view.ts, decide's
 * approval check). The event itself is the record that the lapse was announced: an approval whose event exists is
 * never announced again. Runs in one write-queue unit, and write units of every instance are serialised (the audit
 * tip lock), so two instances sweeping at once announce each lapse once.
 */
import type { AppContext } from '../../app-context.ts';
import { appendEvent } from '../events/append-event.ts';

/** approvals announced per sweep; the rest wait for the next (a sweep is one write unit, kept short) */
export const EXPIRE_BATCH = 500;

export async function expireApprovals(ctx: AppContext): Promise<number> {
  return ctx.writer.run(async (trx) => {
    const now = ctx.clock.now().toISOString();
    const lapsed = await trx
      .selectFrom('approvals')
      .select(['approval_id', 'policy_decision_id', 'principal_entity_id'])
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('events')
              .select('events.event_id')
              .where('events.event_type', '=', 'ns.approval.expired')
              .whereRef('events.subject_ref', '=', 'approvals.approval_id'),
          ),
        ),
      )
      .orderBy('seq')
      .limit(EXPIRE_BATCH)
      .execute();
    for (const row of lapsed) {
      await appendEvent(trx, ctx, {
        event_type: 'ns.approval.expired',
        actor_entity_id: null,
        principal_entity_id: row.principal_entity_id,
        subject_ref: row.approval_id,
        reason_code: 'approval_expired',
        data: { policy_decision_id: row.policy_decision_id, previous_state: 'pending', new_state: 'expired' },
      });
    }
    return lapsed.length;
  });
}
