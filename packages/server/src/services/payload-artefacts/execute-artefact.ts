/**
 * `POST /v1/payload-artefacts/{id}/execute { outcome: executed | failed }` (CONTRACT section 22): a verified artefact
 * is executed once. In ONE write-queue unit: the decision's reservation is settled (`executed`) or released
 * (`failed`) by the very code of `POST /v1/runtime/outcomes` (record-outcome.ts `recordOutcomeInUnit`, which writes
 * the decision's `ns.purchase_authority.<outcome>`), `ns.payload_artefact.executed` is written, and the row moves
 * verified -> executed (the database allows only that move: migration 0025).
 * Refused (422 `artefact_not_executable`, `refusal` naming why, EXECUTION_REFUSALS): an artefact that is not
 * `verified` (`artefact_rejected`, `artefact_executed`: a second execute), or whose decision is not an allowed
 * `execute` still `reserved` (`decision_unknown`, `decision_not_allowed`, `decision_not_execute`,
 * `decision_settled`). A refusal writes `ns.payload_artefact.execution_refused` and its audit entry, and NOTHING
 * else: no artefact, decision, counter or other event row moves.
 * Concurrency: on SQLite the write queue runs units one after another; on PostgreSQL the artefact row is locked
 * first (`for update`), so of two executes exactly one moves it and the other reads `executed` and is refused. A
 * reservation settled meanwhile by `POST /v1/runtime/outcomes` makes the unit fail whole (nothing of it is kept) and
 * the refusal `decision_settled` is written on its own.
 */
import { AarError, isAarError, moneyToJson, type Reservation } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { recordOutcomeInUnit } from '../outcomes/record-outcome.ts';
import { artefactDocument, transitionsOf, type ArtefactDocument, type ArtefactRow } from './artefact-document.ts';
import { parseArtefactId } from './artefact-ids.ts';
import type { ExecutionRefusal } from './artefact-reasons.ts';

export type ExecutionOutcome = 'executed' | 'failed';

type UnitResult = { done: ArtefactRow } | { refused: ExecutionRefusal; row: ArtefactRow };

/** Thrown inside the unit to take all of it back: the reservation was settled between our check and our lock. */
class SettledMeanwhile extends Error {}

export async function executeArtefact(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  outcome: ExecutionOutcome,
): Promise<ArtefactDocument> {
  const id = parseArtefactId(rawId, '/params/id');
  const actor = actorOf(credential);
  if (actor === null) throw new AarError('unauthenticated', 'executing an artefact needs a credential');
  let result: UnitResult;
  try {
    result = await ctx.writer.run((trx) => executeInUnit(trx, ctx, credential, actor, id, outcome));
  } catch (error) {
    const settled = error instanceof SettledMeanwhile || (isAarError(error) && error.code === 'conflict');
    if (!settled) throw error;
    result = await ctx.writer.run(async (trx) => {
      const row = await lockedRow(trx, ctx, id);
      await writeRefusal(trx, ctx, actor, row, outcome, 'decision_settled');
      return { refused: 'decision_settled' as const, row };
    });
  }
  if ('refused' in result) {
    throw new AarError(
      'artefact_not_executable',
      `payload artefact \`${id}\` cannot be executed: ${result.refused} (it is \`${result.row.state}\`)`,
      {
        errors: [{ path: '/params/id', message: result.refused, code: result.refused }],
        extra: { payload_artefact_id: id, state: result.row.state, refusal: result.refused },
      },
    );
  }
  return artefactDocument(ctx, result.done, await transitionsOf(ctx.store.db, id));
}

async function lockedRow(trx: Transaction<Database>, ctx: AppContext, id: string): Promise<ArtefactRow> {
  let query = trx.selectFrom('payload_artefacts').selectAll().where('payload_artefact_id', '=', id);
  if (ctx.store.dialect === 'postgres') query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new AarError('not_found', `payload artefact \`${id}\` does not exist`);
  return row;
}

async function executeInUnit(
  trx: Transaction<Database>,
  ctx: AppContext,
  credential: Credential | null,
  actor: string,
  id: string,
  outcome: ExecutionOutcome,
): Promise<UnitResult> {
  const row = await lockedRow(trx, ctx, id);
  const refusal = await refusalOf(trx, row);
  if (refusal !== null) {
    await writeRefusal(trx, ctx, actor, row, outcome, refusal);
    return { refused: refusal, row };
  }
  // the decision's own outcome, through the code of POST /v1/runtime/outcomes (its locks, checks and event)
  const settled = await recordOutcomeInUnit(trx, ctx, credential, row.policy_decision_id, outcome);
  if (settled.previous_outcome !== 'reserved') throw new SettledMeanwhile();
  const reservation = await trx
    .selectFrom('decisions')
    .select('reservation')
    .where('policy_decision_id', '=', row.policy_decision_id)
    .executeTakeFirstOrThrow();
  const amount = JSON.parse(reservation.reservation as string) as Reservation;
  const event = await appendEvent(trx, ctx, {
    event_type: 'ns.payload_artefact.executed',
    actor_entity_id: actor,
    principal_entity_id: row.principal_entity_id,
    subject_ref: id,
    reason_code: outcome === 'executed' ? 'payload_executed' : 'payload_failed',
    data: {
      payload_artefact_id: id,
      policy_decision_id: row.policy_decision_id,
      previous_state: 'verified',
      new_state: 'executed',
      outcome,
      amount: moneyToJson(amount.amount),
    },
  });
  const done = await trx
    .updateTable('payload_artefacts')
    .set({ state: 'executed', outcome, executed_at: event.occurred_at })
    .where('payload_artefact_id', '=', id)
    .where('state', '=', 'verified')
    .returningAll()
    .executeTakeFirst();
  // unreachable while the row is locked (PostgreSQL) or the queue serial (SQLite); if it ever is, keep nothing
  if (!done) throw new AarError('internal', `payload artefact \`${id}\` moved while it was being executed`);
  return { done };
}

/** Why this artefact cannot be executed now, or null. The decision's facts are read from the store only. */
async function refusalOf(trx: Transaction<Database>, row: ArtefactRow): Promise<ExecutionRefusal | null> {
  if (row.state === 'rejected') return 'artefact_rejected';
  if (row.state === 'executed') return 'artefact_executed';
  const decision = await trx
    .selectFrom('decisions')
    .select(['decision', 'action', 'outcome'])
    .where('policy_decision_id', '=', row.policy_decision_id)
    .executeTakeFirst();
  if (!decision) return 'decision_unknown';
  if (decision.decision !== 'allow_with_constraints') return 'decision_not_allowed';
  if (decision.action !== 'execute') return 'decision_not_execute';
  if (decision.outcome !== 'reserved') return 'decision_settled';
  return null;
}

/** The refusal's event and its audit entry: the only rows a refused execution writes. */
async function writeRefusal(
  trx: Transaction<Database>,
  ctx: AppContext,
  actor: string,
  row: ArtefactRow,
  outcome: ExecutionOutcome,
  refusal: ExecutionRefusal,
): Promise<void> {
  await appendEvent(trx, ctx, {
    event_type: 'ns.payload_artefact.execution_refused',
    actor_entity_id: actor,
    principal_entity_id: row.principal_entity_id,
    subject_ref: row.payload_artefact_id,
    reason_code: refusal,
    data: {
      payload_artefact_id: row.payload_artefact_id,
      policy_decision_id: row.policy_decision_id,
      state: row.state,
      outcome,
      refusal,
    },
  });
}
