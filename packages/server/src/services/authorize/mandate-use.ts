/**
 * What a mandate purchase does inside the decision's transaction (commit-decision.ts), so that it commits with the
 * decision or not at all:
 * - the presented closing hop's key-binding nonces are recorded (`mandate_nonces`, primary key per holder key): a
 *   replay of the same closed presentation, even a concurrent one on another instance, loses on the key and is 422
 *   `mandate_invalid` / `nonce_reused`; its transaction (this decision) rolls back, nothing is recorded;
 * - a single-use mandate's (an ACP allowance, a closed AP2 mandate) `used_by` is read under lock (PostgreSQL
 *   `FOR UPDATE`; SQLite has one writer) into the snapshot's binding (`used`), and set to this decision when it allows
 *   the purchase: of two concurrent purchases under one allowance, on any number of instances, one is allowed and the
 *   other reads `used` (`allowance_used`).
 * Attacker: the database but not the key, clearing `used_by` to spend an allowance twice. An allowance whose
 * `used_by` is null while an allowed purchase under its grant is already recorded is refused (integrity failure,
 * fail closed). The decisions read are those since the mandate was created (`decisions_spend_day` index: an allowed
 * purchase always has a `spend_day`).
 */
import type { GrantSnapshot } from '@aar/core';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';
import { integrityFailure } from './chained-state.ts';
import { mandateInvalid, type MandateRow, type NamedMandate } from './named-mandate.ts';

/** Records the presented nonces; throws 422 `mandate_invalid` (`nonce_reused`) when one was recorded before. */
export async function recordMandateNonces(
  trx: Transaction<Database>,
  nonces: NamedMandate['nonces'],
  nowIso: string,
): Promise<void> {
  for (const n of nonces) {
    const inserted = await trx
      .insertInto('mandate_nonces')
      .values({ key_thumbprint: n.keyThumbprint, nonce: n.nonce, created_at: nowIso })
      .onConflict((oc) => oc.columns(['key_thumbprint', 'nonce']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) {
      throw mandateInvalid([
        {
          path: `/presentation/hops/${n.hop}/payload/nonce`,
          code: 'nonce_reused',
          detail: 'this closed presentation was already presented',
        },
      ]);
    }
  }
}

/**
 * Reads the `used_by` of every single-use mandate of the chains under lock and sets each binding's `used` from it.
 * Returns the single-use mandates read (the ones an allowed purchase marks used).
 */
export async function lockSingleUseMandates(
  trx: Transaction<Database>,
  postgres: boolean,
  links: readonly GrantSnapshot[],
  mandates: readonly MandateRow[],
): Promise<MandateRow[]> {
  const singleUse = mandates.filter((m) => m.single_use === 1).sort((a, b) => a.mandate_id.localeCompare(b.mandate_id));
  const locked: MandateRow[] = [];
  for (const mandate of singleUse) {
    let query = trx.selectFrom('mandates').selectAll().where('mandate_id', '=', mandate.mandate_id);
    if (postgres) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) continue; // the binding then stays as read (a mandate row is never deleted by the service)
    if (row.used_by === null && (await allowedPurchaseUnder(trx, row))) {
      throw integrityFailure('mandates', row.mandate_id, 'used_by');
    }
    for (const link of links) {
      if (link.mandate?.mandate_id === row.mandate_id) link.mandate.used = row.used_by !== null;
    }
    locked.push(row);
  }
  return locked;
}

/** Marks the single-use mandates of the deciding chain used by this allowed purchase (`used_by`, once). */
export async function markMandatesUsed(
  trx: Transaction<Database>,
  chain: readonly GrantSnapshot[],
  locked: readonly MandateRow[],
  policyDecisionId: string,
): Promise<void> {
  for (const link of chain) {
    const mandate = locked.find((m) => m.mandate_id === link.mandate?.mandate_id && m.grant_id === link.grant_id);
    if (!mandate) continue;
    const updated = await trx
      .updateTable('mandates')
      .set({ used_by: policyDecisionId })
      .where('mandate_id', '=', mandate.mandate_id)
      .where('used_by', 'is', null)
      .executeTakeFirst();
    // held under lock since it read null: anything else is a store that moves under the lock
    if (Number(updated.numUpdatedRows) !== 1) throw integrityFailure('mandates', mandate.mandate_id, 'used_by');
  }
}

/** Whether an allowed purchase under the mandate's grant is already recorded. */
async function allowedPurchaseUnder(trx: Transaction<Database>, mandate: MandateRow): Promise<boolean> {
  const found = await trx
    .selectFrom('decisions')
    .select('policy_decision_id')
    .where('spend_day', '>=', mandate.created_at.slice(0, 10))
    .where('leaf_grant_id', '=', mandate.grant_id)
    .where('action', '=', 'execute')
    .where('decision', '=', 'allow_with_constraints')
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}
