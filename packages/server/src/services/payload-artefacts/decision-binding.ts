/**
 * What a payload artefact is bound to: the facts of its decision (CONTRACT section 3) read from the decision row,
 * the grant chain that decided, and the agent's registration. Decisions are write-once but for `outcome`
 * (write-once-guards.ts), so everything here but `outcome` and the agent's key is fixed once the decision exists.
 */
import { computeBasketHash, type Reservation } from '@aar/core';
import type { Kysely, Transaction } from 'kysely';
import type { Database, DecisionOutcome, DecisionValue } from '../../store/index.ts';
import { decisionRequestOf } from '../decisions/stored-decision.ts';

export interface DecisionBinding {
  policy_decision_id: string;
  decision: DecisionValue;
  action: string;
  outcome: DecisionOutcome;
  actor_entity_id: string;
  principal_entity_id: string;
  /** the instant decide was given */
  now: string;
  /** `sha-256:` + base64url of the basket the decision bound, if it bound one */
  basket_hash: string | null;
  /** the mandate or allowance the deciding chain was made from (the one nearest the leaf), if any */
  mandate_id: string | null;
  reservation: Reservation | null;
}

type Db = Kysely<Database> | Transaction<Database>;

/** A chain is never deeper than this (max_delegation_depth is bounded far below): a loop in edited rows stops here. */
const MAX_HOPS = 64;

export async function loadDecisionBinding(db: Db, policyDecisionId: string): Promise<DecisionBinding | undefined> {
  const row = await db
    .selectFrom('decisions')
    .select([
      'policy_decision_id',
      'decision',
      'action',
      'outcome',
      'actor_entity_id',
      'principal_entity_id',
      'now',
      'leaf_grant_id',
      'reservation',
      'request',
      'record',
    ])
    .where('policy_decision_id', '=', policyDecisionId)
    .executeTakeFirst();
  if (!row) return undefined;
  const request = decisionRequestOf(row);
  return {
    policy_decision_id: row.policy_decision_id,
    decision: row.decision,
    action: row.action,
    outcome: row.outcome,
    actor_entity_id: row.actor_entity_id,
    principal_entity_id: row.principal_entity_id,
    now: row.now,
    basket_hash: basketHashOf(request),
    mandate_id: await chainMandate(db, row.leaf_grant_id),
    reservation: row.reservation ? (JSON.parse(row.reservation) as Reservation) : null,
  };
}

/** The outcome alone, re-read inside the write unit that acts on it (the only member that moves). */
export async function currentOutcome(db: Db, policyDecisionId: string): Promise<DecisionOutcome | undefined> {
  const row = await db
    .selectFrom('decisions')
    .select('outcome')
    .where('policy_decision_id', '=', policyDecisionId)
    .executeTakeFirst();
  return row?.outcome;
}

/** As decide binds it (core decide.ts bindBasket): the given hash, else the hash of the basket; a bad one binds none. */
function basketHashOf(request: { basket?: Record<string, unknown>; basket_hash?: string }): string | null {
  if (typeof request.basket_hash === 'string') return request.basket_hash;
  if (request.basket === undefined) return null;
  try {
    return computeBasketHash(request.basket);
  } catch {
    return null;
  }
}

async function chainMandate(db: Db, leafGrantId: string | null): Promise<string | null> {
  let grantId = leafGrantId;
  for (let hop = 0; grantId !== null && hop < MAX_HOPS; hop++) {
    const grant = await db
      .selectFrom('grants')
      .select(['parent_grant_id', 'mandate_id'])
      .where('grant_id', '=', grantId)
      .executeTakeFirst();
    if (!grant) return null;
    if (grant.mandate_id) return grant.mandate_id;
    grantId = grant.parent_grant_id;
  }
  return null;
}
