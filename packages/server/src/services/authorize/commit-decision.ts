/**
 * The decision's transaction: everything decide reads that can change under concurrency is read here under lock,
 * decide runs, and its effects are written before the commit: the spend reservation, the approval it creates or
 * spends, the decision record with its signed map, and the event. Either all of it is committed or none.
 *
 * INVARIANTS
 * - Daily limit: the spend rows of every grant of every covering chain are locked (PostgreSQL `FOR UPDATE`, in grant-id order so
 *   two chains sharing an ancestor cannot deadlock; SQLite has one writer) before their values enter the snapshot, and
 *   the reservation is added before the lock is released: concurrent requests, on any instance, never together
 *   exceed `max_daily_amount`.
 * - Budgets: each budgeted link's spend over its period is read after today's rows are locked, and backed by the
 *   decisions like today's (budget-spend.ts): concurrent purchases never together exceed a link's `budget`.
 * - Mandates: a presented closed mandate's nonces are inserted here (a replay loses on the key: 422, rolled back); a
 *   single-use mandate's `used_by` is read under lock and set by the purchase it allows (mandate-use.ts).
 * - Nonces: inserted here; the primary key makes a replay (even a concurrent one on another instance) lose.
 * - Approvals: read under lock; an allowed retry marks its approval consumed in the same transaction.
 * - The recorded snapshot is exactly what decide read, so replaying decide on it gives the recorded decision.
 */
import {
  buildDecisionMap,
  canonicalDecisionRecord,
  decide,
  decidingChain,
  mintedId,
  moneyToJson,
  signDocumentWithText,
  type ApprovalSnapshot,
  type DecisionRequest,
  type DecisionSnapshot,
  type GrantSnapshot,
  type ShadowOutcome,
} from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { decisionRecordBytes } from '../decisions/record-bytes.ts';
import type { StoredPolicySetText } from '../decisions/record-codec.ts';
import { hasSignedOrder } from '../decisions/stored-decision.ts';
import { derivesTo } from '../events/decision-envelope.ts';
import { ENSURE_SPEND_ROW, INSERT_NONCE, SPEND_ROWS, SPEND_ROWS_FOR_UPDATE } from './decision-statements.ts';
import {
  approvalBound,
  approvalEffect,
  createsApproval,
  decisionEntryKind,
  type ApprovalEffect,
} from './approval-effect.ts';
import { assertApprovalChained, boundKey } from './chained-approval.ts';
import { fillBudgetSpent } from './budget-spend.ts';
import { lockSingleUseMandates, markMandatesUsed, recordMandateNonces } from './mandate-use.ts';
import type { MandateRow, NamedMandate } from './named-mandate.ts';
import { assertSpendChained, rememberSpend, spendMemoryOf } from './chained-spend.ts';
import { chainedStateCacheOf, type ChainedStateCache } from './chained-state.ts';
import type { AuthorizeResponse } from './decision-response.ts';
import { ENGINE_VERSION } from './engine-version.ts';
import { knownPolicySetText, markedPolicySet } from './policy-set-text.ts';
import type { SnapshotWithPolicy } from './load-snapshot.ts';
import { isLivePurchase } from './counter-buckets.ts';
import { counterMemoryOf } from './counter-memory.ts';
import { maintainPurchaseCounters, readMaintainedCounters } from './maintained-counters.ts';
import { lockPurchaseCounters } from './purchase-counters.ts';
import type { PayloadVerification } from './verify-payload.ts';
import {
  lockNonceAndSpend,
  nonceExpiry,
  reserveSpend,
  writeDecision,
  type DecisionInsert,
  type SpendRow,
} from './write-decision.ts';

export interface CommitDecisionInput {
  request: DecisionRequest;
  /** from loadSnapshot: complete but for nonce freshness, spend, the approval and counters, filled in here */
  snapshot: SnapshotWithPolicy;
  payload: PayloadVerification;
  now: Date;
  /** an active rule reads `facts.counters`: counted here, under the principal's lock (purchase-counters.ts) */
  readsCounters?: boolean;
  /** the snapshot's policy set text, durably stored once: the record names it instead of carrying it (codec 2) */
  storedPolicySet?: StoredPolicySetText;
  /** the mandates the chains' grants were made from (load-snapshot.ts) */
  mandates?: MandateRow[];
  /** the presented closing hop's key-binding nonces (named-mandate.ts), recorded here */
  mandateNonces?: NamedMandate['nonces'];
}

export async function commitDecision(ctx: AppContext, input: CommitDecisionInput): Promise<AuthorizeResponse> {
  const { request, now } = input;
  const nowIso = now.toISOString();
  const day = nowIso.slice(0, 10);
  const postgres = ctx.store.dialect === 'postgres';

  const chained = chainedStateCacheOf(ctx);
  const spendMemory = spendMemoryOf(ctx);
  const counterMemory = counterMemoryOf(ctx);
  // what this decision writes that the chain backs (an approval it creates): known once it commits
  let written: string[] = [];
  const response = await ctx.writer.run(async (trx) => {
    written = [];
    // completed in place: the snapshot is this call's own (authorize builds it fresh for every request)
    const snapshot: SnapshotWithPolicy = input.snapshot;

    // The purchase counters a rule reads: locked FIRST (before any row lock of this transaction, purchase-counters.ts)
    // and read inside this transaction, so a concurrent decision of the principal or agent counts this one or waits.
    // Read from the maintained buckets, each honoured only as far as the decisions back it (maintained-counters.ts).
    if (input.readsCounters) {
      const parties = { principal_entity_id: request.principal_entity_id, actor_entity_id: request.actor_entity_id };
      await lockPurchaseCounters(trx, postgres, parties);
      const counters = await readMaintainedCounters(
        trx,
        counterMemory,
        { ...parties, merchant_id: request.merchant_id, currency: request.amount?.currency },
        now,
      );
      snapshot.facts = { ...snapshot.facts, counters };
    }

    // Every covering chain's spend (each candidate grant counts against its own day), locked before decide reads it.
    const chains = [snapshot.grants, ...(snapshot.alternatives ?? [])];
    const links = chains.flat();
    const grantIds = [...new Set(links.map((g) => g.grant_id))];
    // the counters read under lock, once the chain backs them (chained-spend.ts)
    let counters: SpendRow[] = [];
    // PostgreSQL: the nonce and the spend lock in one round trip (write-decision.ts); SQLite: one statement each
    const nonce = input.payload.nonce;
    const joined =
      postgres && nonce && grantIds.length > 0 ? await lockNonceAndSpend(ctx, trx, nonce, day, grantIds) : undefined;
    snapshot.payload.nonce_fresh = joined ? joined.fresh : nonce ? await rememberNonce(ctx, trx, nonce) : false;
    if (grantIds.length > 0) {
      const spendRows = postgres ? SPEND_ROWS_FOR_UPDATE : SPEND_ROWS;
      let rows: SpendRow[] = joined?.rows ?? (await spendRows.execute(trx, { day }, grantIds)).rows;
      if (request.action === 'execute' && request.amount && rows.length < grantIds.length) {
        // The day's first reservation against some grant: create its row (in grant-id order, so two transactions
        // creating rows of overlapping chains cannot deadlock), then read and lock them all again. A row another
        // transaction is creating makes the insert wait for it, then do nothing; the second read then sees and
        // locks it. Every later request of the day reads and locks in one statement.
        const found = new Set(rows.map((row) => row.grant_id));
        const currencies = new Map<string, string>();
        for (const g of links) if (!currencies.has(g.grant_id)) currencies.set(g.grant_id, g.spent_today.currency);
        for (const grantId of grantIds.filter((id) => !found.has(id)).sort()) {
          await ENSURE_SPEND_ROW.execute(trx, { grant_id: grantId, day, currency: currencies.get(grantId)! });
        }
        rows = (await spendRows.execute(trx, { day }, grantIds)).rows;
      }
      // a lowered or deleted counter would let the agent spend past its daily limit: fail closed
      await assertSpendChained(trx, spendMemory, day, rows);
      counters = rows;
      for (const row of rows) {
        for (const grant of links) {
          if (grant.grant_id === row.grant_id) {
            grant.spent_today = { minor: Number(row.reserved_minor), currency: row.currency };
          }
        }
      }
      // each budgeted link's spend in its period, today's row now locked (budget-spend.ts)
      await fillBudgetSpent(trx, spendMemory, {
        links,
        nowIso,
        day,
        reserves: request.action === 'execute' && request.amount !== undefined,
        postgres,
      });
    }

    // a presented mandate's nonces, then single-use mandates under lock, after the spend rows (mandate-use.ts)
    if (input.mandateNonces && input.mandateNonces.length > 0) {
      await recordMandateNonces(trx, input.mandateNonces, nowIso);
    }
    const singleUse = input.mandates?.length ? await lockSingleUseMandates(trx, postgres, links, input.mandates) : [];

    if (request.policy_decision_id) {
      snapshot.approval = await lockApproval(trx, request.policy_decision_id, postgres, chained);
    }

    const result = decide(request, snapshot, nowIso);

    const policyDecisionId = mintedId('decision', ctx.newUuid());
    if (singleUse.length > 0 && isLivePurchase(result.decision, request.action)) {
      await markMandatesUsed(trx, decidingChain(snapshot, result) as GrantSnapshot[], singleUse, policyDecisionId);
    }
    const decisionMapId = mintedId('decision_map', ctx.newUuid());
    const auditRef = mintedId('audit', ctx.newUuid());
    const evidenceRefs = [mintedId('evidence-pack', ctx.newUuid())];

    const reservation = result.reservation && {
      minor: result.reservation.amount.minor,
      day,
      grantIds: result.reservation.grant_ids,
    };
    await reserveSpend(ctx, trx, reservation);
    // a live purchase moves the counters' buckets in its own transaction, after the spend rows' locks (counter-buckets.ts)
    if (isLivePurchase(result.decision, request.action)) {
      await maintainPurchaseCounters(
        trx,
        counterMemory,
        {
          principal_entity_id: request.principal_entity_id,
          actor_entity_id: request.actor_entity_id,
          now: nowIso,
          currency: request.amount?.currency ?? null,
          amount_minor: request.amount?.minor ?? null,
        },
        1,
      );
    }

    let approval: AuthorizeResponse['approval'];
    // one rule for what the decision does to approvals, shared with the record checkers (approval-effect.ts)
    const effect = approvalEffect(request, result, snapshot.approval?.approval_id ?? null);
    if (effect === 'consume') {
      await trx
        .updateTable('approvals')
        .set({ status: 'consumed', consumed_by: policyDecisionId, updated_at: nowIso })
        .where('approval_id', '=', snapshot.approval!.approval_id)
        .execute();
    } else if (effect === 'pending') {
      approval = {
        approval_id: snapshot.approval!.approval_id,
        status: 'pending',
        expires_at: snapshot.approval!.expires_at,
      };
    } else if (createsApproval(effect)) {
      // `push`: purchase.request_approval, allowed: the agent asks the principal ahead of the purchase. decide
      // allowed the ask; creating the approval (and the push event below) is this allowed decision's effect. The
      // approval binds the purchase itself (`execute`, CARD_PURCHASE_CAPABILITY), so the principal's answer is what
      // the agent's execute with this `policy_decision_id` is judged by. A retry of an ask that consumed an approval
      // already granted is `consume`: an ordinary allow, with no approval to push.
      const created = await createApproval(ctx, trx, request, result.reason, policyDecisionId, now, effect);
      approval = created.approval;
      written.push(boundKey(approval.approval_id, created.bound));
    }

    // the map's canonical text comes with its signature: the record below holds it without a second pass
    const { document: map, text: mapText } = await signDocumentWithText(
      buildDecisionMap({
        decision_map_id: decisionMapId,
        policy_decision_id: policyDecisionId,
        audit_ref: auditRef,
        evidence_refs: evidenceRefs,
        issued_at: nowIso,
        request,
        snapshot,
        result,
      }),
      ctx.keys.current(),
    );
    // the grant that decided (several may cover one request): the one the map, the record and the event name
    const chain = decidingChain(snapshot, result) as DecisionSnapshot['grants'];
    const leaf = chain[chain.length - 1];
    // the record's bytes are stored once (compressed) and are what the audit entry's digest hashes (migration 0010)
    const recordText = canonicalDecisionRecord(
      {
        policy_decision_id: policyDecisionId,
        request,
        snapshot,
        now: nowIso,
        result,
        engine_version: ENGINE_VERSION,
        decision_map: map,
      },
      mapText,
      input.storedPolicySet
        ? markedPolicySet((snapshot as { policy_set: object }).policy_set)
        : knownPolicySetText((snapshot as { policy_set?: object }).policy_set),
    );
    const stored = decisionRecordBytes(recordText, input.storedPolicySet);
    const decisionRow: DecisionInsert = {
      policy_decision_id: policyDecisionId,
      decision: result.decision,
      reason: result.reason,
      actor_entity_id: request.actor_entity_id,
      principal_entity_id: request.principal_entity_id,
      subject: request.subject,
      action: request.action,
      leaf_grant_id: leaf?.grant_id ?? null,
      request: '',
      snapshot: '',
      result: '',
      decision_map_id: decisionMapId,
      decision_map: hasSignedOrder(map) ? '' : JSON.stringify(map),
      audit_ref: auditRef,
      evidence_refs: JSON.stringify(evidenceRefs),
      approval_id: approval?.approval_id ?? snapshot.approval?.approval_id ?? null,
      reservation: result.reservation ? JSON.stringify(result.reservation) : null,
      spend_day: result.reservation ? day : null,
      outcome: result.reservation ? 'reserved' : 'none',
      engine_version: ENGINE_VERSION,
      now: nowIso,
      created_at: nowIso,
      updated_at: nowIso,
      record: stored.record,
      // restated from the request (the record checker compares them): what the rule counters read
      merchant_id: request.merchant_id ?? null,
      amount_minor: request.amount?.minor ?? null,
      currency: request.amount?.currency ?? null,
    };
    // the reservation too on PostgreSQL, in one statement with the decision and the event (write-decision.ts)
    await writeDecision(ctx, trx, decisionRow, reservation, {
      // an allowed request_approval is the push to the principal's banking app (CONTRACT section 9)
      event_type: decisionEntryKind(result.decision, effect)!,
      actor_entity_id: request.actor_entity_id,
      principal_entity_id: request.principal_entity_id,
      subject_ref: policyDecisionId,
      reason_code: result.reason,
      data: {
        policy_decision_id: policyDecisionId,
        decision: result.decision,
        subject: request.subject,
        merchant_id: request.merchant_id ?? null,
        amount: request.amount ? moneyToJson(request.amount) : null,
        grant_id: leaf?.grant_id ?? null,
        decision_map_ref: decisionMapId,
        ...(approval ? { approval_id: approval.approval_id, expires_at: approval.expires_at } : {}),
        // only when a shadow pack was evaluated: its would-be outcome, never decisive (CONTRACT section 19)
        ...(shadowOf(result) ? { shadow: shadowOf(result) } : {}),
      },
      audit_ref: auditRef,
      evidence_refs: evidenceRefs,
      // the entry commits to the whole decision record, so the evidence pack re-derives its digest (core/evidence)
      audit_record_digest: stored.digest,
      // its envelope is derived from the decision row on read when that gives it back byte for byte
      storeEnvelope: (envelope) =>
        !derivesTo(envelope, {
          policy_decision_id: policyDecisionId,
          decision: result.decision,
          reason: result.reason,
          actor_entity_id: request.actor_entity_id,
          principal_entity_id: request.principal_entity_id,
          subject: request.subject,
          leaf_grant_id: leaf?.grant_id ?? null,
          decision_map_id: decisionMapId,
          audit_ref: auditRef,
          evidence_refs: JSON.stringify(evidenceRefs),
          request,
        }),
    });
    rememberSpend(spendMemory, day, counters, reservation);
    return {
      policy_decision_id: policyDecisionId,
      decision: result.decision,
      reason: result.reason,
      obligations: result.obligations,
      stop_conditions: result.stop_conditions,
      evidence_refs: evidenceRefs,
      decision_map_ref: decisionMapId,
      audit_ref: auditRef,
      decision_map: map as unknown as Record<string, unknown>,
      ...(approval ? { approval } : {}),
    };
  });
  for (const key of written) chained.add(key);
  return response;
}

/** `result.shadow` of aar-decide/1.3.0 when decide evaluated a shadow pack (absent otherwise, and before 1.3.0) */
function shadowOf(result: object): ShadowOutcome[] | undefined {
  const shadow = (result as { shadow?: ShadowOutcome[] }).shadow;
  return shadow && shadow.length > 0 ? shadow : undefined;
}

async function rememberNonce(
  ctx: AppContext,
  trx: Transaction<Database>,
  n: NonNullable<PayloadVerification['nonce']>,
): Promise<boolean> {
  const expiresAt = nonceExpiry(n.created, ctx.config.signatureWindowSeconds);
  const inserted = await INSERT_NONCE.execute(trx, {
    keyid: n.keyid,
    nonce: n.nonce,
    created: n.created,
    expires_at: expiresAt,
  });
  return Number(inserted.numAffectedRows ?? 0n) === 1;
}

/** The approval a retry names, under lock; an approved one only as far as the chain backs it (chained-approval.ts). */
async function lockApproval(
  trx: Transaction<Database>,
  policyDecisionId: string,
  postgres: boolean,
  chained: ChainedStateCache,
): Promise<ApprovalSnapshot | null> {
  let query = trx.selectFrom('approvals').selectAll().where('policy_decision_id', '=', policyDecisionId);
  if (postgres) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) return null;
  await assertApprovalChained(trx, chained, row);
  return {
    approval_id: row.approval_id,
    policy_decision_id: row.policy_decision_id,
    status: row.status,
    expires_at: row.expires_at,
    bound: JSON.parse(row.bound) as ApprovalSnapshot['bound'],
  };
}

async function createApproval(
  ctx: AppContext,
  trx: Transaction<Database>,
  request: DecisionRequest,
  reason: string,
  policyDecisionId: string,
  now: Date,
  effect: ApprovalEffect,
): Promise<{ approval: NonNullable<AuthorizeResponse['approval']>; bound: string }> {
  const approvalId = mintedId('approval', ctx.newUuid());
  const nowIso = now.toISOString();
  const expiresAt = new Date(now.getTime() + ctx.config.approvalTtlSeconds * 1000).toISOString();
  const boundText = JSON.stringify(approvalBound(request, effect));
  await trx
    .insertInto('approvals')
    .values({
      approval_id: approvalId,
      policy_decision_id: policyDecisionId,
      principal_entity_id: request.principal_entity_id,
      actor_entity_id: request.actor_entity_id,
      status: 'pending',
      reason,
      bound: boundText,
      expires_at: expiresAt,
      decided_at: null,
      sca_reference: null,
      consumed_by: null,
      created_at: nowIso,
      updated_at: nowIso,
    })
    .execute();
  return { approval: { approval_id: approvalId, status: 'pending', expires_at: expiresAt }, bound: boundText };
}
