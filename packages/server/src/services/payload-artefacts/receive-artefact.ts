/**
 * `POST /v1/payload-artefacts` (CONTRACT section 22): a payload an agent is about to execute, by digest, is received
 * and, in the same write-queue unit, verified against its decision or rejected with one reason (the first check
 * that fails, in PAYLOAD_ARTEFACT_REJECTIONS order, docs/artefacts.md):
 *   decision_unknown, decision_not_allowed, decision_not_execute, decision_expired (presented more than
 *   ARTEFACT_WINDOW_SECONDS after the decision), decision_settled (its reservation was settled or released
 *   already), signature_missing | signature_key_unknown | signature_invalid (agent-statement.ts), mandate_mismatch
 *   (the named mandate is not the one the decision was made under, or the decision was made under none),
 *   basket_not_bound | basket_mismatch (a `basket` artefact: the decision bound no basket hash, or another one),
 *   decision_has_artefact (the decision has a verified or executed artefact already).
 * Both outcomes are stored (201): a rejected artefact is a record of what was presented, and can never be executed.
 * Written in ONE unit: `ns.payload_artefact.received`, then `.verified` or `.rejected` (each with its audit entry),
 * then the row. Bad input (400) writes nothing.
 * Attacker assumptions: the caller (runtime or admin) chooses every member; the decision's facts are read from the
 * store only; the signature key is the agent's registered one only. Two instances verifying artefacts of one
 * decision at once: `verified_for` is unique, the loser's unit fails and is run again, then rejected.
 */
import { AarError, canonicalJson, fieldError, parseMintedId, tryDecodeBase64Url } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database, DecisionOutcome } from '../../store/index.ts';
import type { PayloadArtefactKind } from '../../store/schema-payload-artefacts.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import { checkAgentSignature, type AgentSignature, type SignatureVerdict } from './agent-statement.ts';
import { artefactDocument, transitionsOf, type ArtefactDocument, type ArtefactRow } from './artefact-document.ts';
import { factsDigest } from './artefact-facts.ts';
import { mintArtefactId, parseMandateRef } from './artefact-ids.ts';
import type { RejectionReason } from './artefact-reasons.ts';
import { currentOutcome, loadDecisionBinding, type DecisionBinding } from './decision-binding.ts';

/** A decision is good for an artefact this long after it was made (an approval's default lifetime). */
export const ARTEFACT_WINDOW_SECONDS = 900;

export interface ReceiveArtefactInput {
  kind: PayloadArtefactKind;
  digest: string;
  signature?: AgentSignature;
  policy_decision_id: string;
  mandate_id?: string;
}

export async function receiveArtefact(
  ctx: AppContext,
  credential: Credential | null,
  input: ReceiveArtefactInput,
): Promise<ArtefactDocument> {
  const decisionId = parseMintedId('decision', input.policy_decision_id, '/policy_decision_id');
  const digestBytes = tryDecodeBase64Url(input.digest);
  if (digestBytes === undefined || digestBytes.length !== 32) {
    throw fieldError('invalid_request', '/digest', 'must be the base64url (unpadded) SHA-256 of the payload: 32 bytes');
  }
  const namedMandate = input.mandate_id === undefined ? null : parseMandateRef(input.mandate_id, '/mandate_id');

  // the facts that cannot move, and the signature, outside the unit (crypto does not hold the write queue)
  const binding = await loadDecisionBinding(ctx.store.db, decisionId);
  let verdict: SignatureVerdict | undefined;
  if (binding) {
    const agent = await ctx.store.db
      .selectFrom('entities')
      .select(['public_key_jwk', 'state'])
      .where('entity_id', '=', binding.actor_entity_id)
      .executeTakeFirst();
    const key = agent && agent.state !== 'tombstoned' ? agent.public_key_jwk : null;
    verdict = await checkAgentSignature(
      { kind: input.kind, digest: input.digest, policy_decision_id: decisionId },
      input.signature,
      binding.actor_entity_id,
      key,
    );
  }

  const write = () =>
    ctx.writer.run((trx) => writeArtefact(trx, ctx, credential, input, decisionId, namedMandate, binding, verdict));
  let row: ArtefactRow;
  try {
    row = await write();
  } catch (error) {
    // another instance verified an artefact of this decision between our read and our insert: once more, rejected
    if (!isUniqueViolation(error)) throw error;
    row = await write();
  }
  return artefactDocument(ctx, row, await transitionsOf(ctx.store.db, row.payload_artefact_id));
}

async function writeArtefact(
  trx: Transaction<Database>,
  ctx: AppContext,
  credential: Credential | null,
  input: ReceiveArtefactInput,
  decisionId: string,
  namedMandate: string | null,
  binding: DecisionBinding | undefined,
  verdict: SignatureVerdict | undefined,
): Promise<ArtefactRow> {
  const artefactId = mintArtefactId(ctx.newUuid());
  // the moving facts, read again inside the unit: the decision's outcome, and whether it has a live artefact
  const outcome = binding ? await currentOutcome(trx, decisionId) : undefined;
  const live = binding
    ? await trx
        .selectFrom('payload_artefacts')
        .select('payload_artefact_id')
        .where('verified_for', '=', decisionId)
        .executeTakeFirst()
    : undefined;
  const reason = rejectionOf(ctx, input, namedMandate, binding, outcome, verdict, live !== undefined);
  const actor = actorOf(credential);
  if (actor === null) throw new AarError('unauthenticated', 'a payload artefact needs a credential');

  const received = await appendEvent(trx, ctx, {
    event_type: 'ns.payload_artefact.received',
    actor_entity_id: actor,
    principal_entity_id: binding?.principal_entity_id ?? null,
    subject_ref: artefactId,
    reason_code: 'payload_received',
    data: {
      payload_artefact_id: artefactId,
      kind: input.kind,
      digest: input.digest,
      policy_decision_id: decisionId,
      mandate_id: namedMandate,
      signed: input.signature !== undefined,
    },
  });
  const verified = reason === null && binding !== undefined;
  const reservation = binding?.reservation ?? null;
  // the row's fixed facts; its instants are the events' occurred_at, known once they are written
  const facts = {
    payload_artefact_id: artefactId,
    kind: input.kind,
    digest: input.digest,
    agent_signature: input.signature === undefined ? null : canonicalJson(input.signature),
    agent_key_thumbprint: verified && verdict?.ok ? verdict.thumbprint : null,
    policy_decision_id: decisionId,
    mandate_id: verified ? binding.mandate_id : namedMandate,
    actor_entity_id: binding?.actor_entity_id ?? null,
    principal_entity_id: binding?.principal_entity_id ?? null,
    basket_hash: binding?.basket_hash ?? null,
    amount_minor: reservation?.amount.minor ?? null,
    currency: reservation?.amount.currency ?? null,
    reason,
    verified_for: verified ? decisionId : null,
  };
  const decided = await appendEvent(trx, ctx, {
    event_type: verified ? 'ns.payload_artefact.verified' : 'ns.payload_artefact.rejected',
    actor_entity_id: actor,
    principal_entity_id: binding?.principal_entity_id ?? null,
    subject_ref: artefactId,
    reason_code: verified ? 'payload_verified' : (reason as string),
    data: verified
      ? {
          payload_artefact_id: artefactId,
          kind: input.kind,
          digest: input.digest,
          policy_decision_id: decisionId,
          agent_entity_id: binding.actor_entity_id,
          mandate_id: facts.mandate_id,
          basket_hash: binding.basket_hash,
          agent_key_thumbprint: facts.agent_key_thumbprint,
          facts_digest: factsDigest(facts),
        }
      : {
          payload_artefact_id: artefactId,
          kind: input.kind,
          digest: input.digest,
          policy_decision_id: decisionId,
          mandate_id: facts.mandate_id,
          reason,
          facts_digest: factsDigest(facts),
        },
  });
  return trx
    .insertInto('payload_artefacts')
    .values({
      ...facts,
      state: verified ? 'verified' : 'rejected',
      outcome: null,
      received_at: received.occurred_at,
      decided_at: decided.occurred_at,
      executed_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The first check that fails, in the documented order; null: verified. */
function rejectionOf(
  ctx: AppContext,
  input: ReceiveArtefactInput,
  namedMandate: string | null,
  binding: DecisionBinding | undefined,
  outcome: DecisionOutcome | undefined,
  verdict: SignatureVerdict | undefined,
  hasLiveArtefact: boolean,
): RejectionReason | null {
  if (!binding || outcome === undefined || verdict === undefined) return 'decision_unknown';
  if (binding.decision !== 'allow_with_constraints') return 'decision_not_allowed';
  if (binding.action !== 'execute') return 'decision_not_execute';
  const age = (ctx.clock.now().getTime() - Date.parse(binding.now)) / 1000;
  if (age > ARTEFACT_WINDOW_SECONDS) return 'decision_expired';
  if (outcome !== 'reserved') return 'decision_settled';
  if (!verdict.ok) return verdict.reason;
  if (namedMandate !== null && namedMandate !== binding.mandate_id) return 'mandate_mismatch';
  if (input.kind === 'basket') {
    if (binding.basket_hash === null) return 'basket_not_bound';
    if (binding.basket_hash !== `sha-256:${input.digest}`) return 'basket_mismatch';
  }
  if (hasLiveArtefact) return 'decision_has_artefact';
  return null;
}
