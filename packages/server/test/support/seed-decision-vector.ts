/**
 * Builds, in an empty store, the state from which authorize loads exactly a decision vector's snapshot.
 * Through the admin API wherever it can say it (entities with the agent's key, card tokens, merchants, suspensions,
 * risk signals, the runtime token); by direct inserts where it cannot (grants with given ids and signed links, a
 * suspended merchant or tombstoned entity, the spend counters, an approval in a given status, the mandates rows of
 * grants made from a mandate or allowance).
 * A budgeted link's `budget_spent` (aar-decide/1.4.0) is what authorize sums over the days of its period
 * (services/authorize/budget-spend.ts): today's counter is its `spent_today`, and the rest is yesterday's counter,
 * so a vector whose budget_spent is below its spent_today, or above it under a budget whose period starts today, has
 * no database state (it throws here and is in the HTTP walk's SKIP list).
 */
import { generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import {
  budgetPeriodStart,
  cardTokenId,
  signDocument,
  tryParseCardTokenRef,
  tryParseEntityId,
  type DecisionSnapshot,
  type EntitySnapshot,
  type GrantSnapshot,
  type PurchaseAction,
} from '@aar/core';
import { createRequestSigner, type RequestSigner } from '@aar/sdk';
import { approvedKey, boundKey } from '../../src/services/authorize/chained-approval.ts';
import { previousDay } from '../../src/services/authorize/budget-spend.ts';
import { spendMemoryOf } from '../../src/services/authorize/chained-spend.ts';
import { chainedStateCacheOf } from '../../src/services/authorize/chained-state.ts';
import { createApiCall, mustSucceed, type ApiCall } from './api-call.ts';
import type { DecisionVector } from './decision-vectors.ts';
import { ADMIN_TOKEN, type TestRuntime } from './test-runtime.ts';
import { insertVectorGrants, vectorGrantOf, type VectorGrant } from './vector-grants.ts';

export interface SeededVector {
  /** admin credential; fails on any non-2xx */
  admin: ApiCall;
  runtimeToken: string;
  /** the agent's signer, its clock fixed at the vector's `payload.created` (or `now`) */
  signer: RequestSigner;
  /** rewrites the spend counters and the approval to the vector's values (a first request may change them) */
  resetMutableState(): Promise<void>;
}

export async function seedDecisionVector(rt: TestRuntime, base: string, vector: DecisionVector): Promise<SeededVector> {
  const { request, snapshot, now } = vector.input;
  const db = rt.ctx.store.db;
  const nowIso = new Date(now).toISOString();
  const admin = mustSucceed(createApiCall(base, ADMIN_TOKEN));

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateJwk = privateKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
  const publicJwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };

  // Several covering chains: inserted oldest first (the last alternative first, `grants` last, each root first, a
  // shared ancestor once), so the server's newest-first order lists them as the snapshot does.
  const chains = [...(snapshot.alternatives ?? [])].reverse().concat([snapshot.grants]);
  const seen = new Set<string>();
  const grants: VectorGrant[] =
    snapshot.grant_lookup === 'found'
      ? chains
          .flat()
          .filter((g) => !seen.has(g.grant_id) && seen.add(g.grant_id))
          .map(vectorGrantOf)
      : snapshot.grant_lookup === 'capability_not_granted'
        ? [uncoveringGrant(request.actor_entity_id, request.principal_entity_id, request.action, request.instrument_id)]
        : [];

  // every entity is created active (a card token needs an active owner); states are applied once all exist
  const entities = new Map<string, EntitySnapshot>();
  const addEntity = (e: EntitySnapshot) => {
    if (!entities.has(e.entity_id)) entities.set(e.entity_id, e);
  };
  if (snapshot.principal) addEntity(snapshot.principal);
  if (snapshot.actor) addEntity(snapshot.actor);
  if (snapshot.instrument) addEntity(activeEntity(snapshot.instrument.principal_entity_id));
  // an intermediary (the actor of a link that delegated further) in the state the snapshot gives it
  for (const g of snapshot.grant_lookup === 'found' ? snapshot.grants.slice(0, -1) : []) {
    if (g.actor_state) addEntity({ ...activeEntity(g.actor_entity_id), state: g.actor_state });
  }
  for (const g of grants) {
    addEntity(activeEntity(g.principal_entity_id));
    addEntity(activeEntity(g.actor_entity_id));
  }
  for (const e of entities.values()) {
    const parsed = tryParseEntityId(e.entity_id);
    if (!parsed || parsed.id !== e.entity_id || parsed.type !== e.type) {
      throw new Error(`entity ${e.entity_id} of type ${e.type} cannot be registered under that id`);
    }
    const isActor = e.entity_id === snapshot.actor?.entity_id;
    await admin('POST', '/v1/entities', {
      type: e.type,
      id: parsed.local,
      display_name: `Vector ${parsed.local}`,
      ...(isActor ? { public_key_jwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x } } : {}),
    });
  }

  const tokens = new Map<string, { owner: string; state: 'active' | 'suspended' }>();
  if (snapshot.instrument) {
    const local = localTokenOf(snapshot.instrument.card_token_id);
    tokens.set(local, { owner: snapshot.instrument.principal_entity_id, state: snapshot.instrument.state });
  }
  for (const g of grants) {
    const local = localTokenOf(g.resource_id);
    if (!tokens.has(local)) tokens.set(local, { owner: g.principal_entity_id, state: 'active' });
  }
  for (const [local, token] of tokens) {
    await admin('POST', '/v1/card-tokens', {
      id: local,
      principal_entity_id: token.owner,
      network_token: `ntk_${local}`,
    });
    if (token.state === 'suspended') await admin('POST', `/v1/card-tokens/ns:card_token:${local}/suspend`);
  }

  if (snapshot.merchant) {
    const m = snapshot.merchant;
    await admin('POST', '/v1/merchants', {
      id: m.merchant_id,
      display_name: `Vector ${m.merchant_id}`,
      category: m.category,
      jurisdiction: m.jurisdiction,
    });
    if (m.state !== 'active') {
      // the API has no merchant suspension
      await db.updateTable('merchants').set({ state: m.state }).where('merchant_id', '=', m.merchant_id).execute();
    }
  }

  await insertVectorGrants(rt.ctx, grants, nowIso);
  await insertMandateRows(rt, grants, nowIso);
  await attestAgentMetadata(admin, snapshot, privateKey, nowIso);

  for (const e of entities.values()) {
    if (e.state === 'suspended') await admin('POST', `/v1/entities/${e.entity_id}/suspend`);
    else if (e.state === 'tombstoned') {
      // erasure is not part of the admin API this suite drives
      await db.updateTable('entities').set({ state: 'tombstoned' }).where('entity_id', '=', e.entity_id).execute();
    }
  }

  const runtimeToken: string = (await admin('POST', '/v1/tokens', { role: 'runtime' })).body.token;
  const risky: Array<[string | undefined, DecisionSnapshot['risk']['actor']]> = [
    [canonicalEntity(request.actor_entity_id), snapshot.risk.actor],
    [canonicalEntity(request.principal_entity_id), snapshot.risk.principal],
    [request.instrument_id && cardTokenId(localTokenOf(request.instrument_id)), snapshot.risk.instrument],
  ];
  for (const [entityId, state] of risky) {
    if (state === 'normal') continue;
    if (!entityId) throw new Error(`risk ${state} for a subject the request does not name`);
    await admin('POST', '/v1/risk-signals', { entity_id: entityId, risk_state: state }, runtimeToken);
  }

  const resetMutableState = async () => {
    await db.deleteFrom('spend_counters').execute();
    const links = new Map<string, GrantSnapshot>();
    for (const g of snapshot.grant_lookup === 'found' ? chains.flat() : []) links.set(g.grant_id, g);
    for (const g of links.values()) {
      for (const counter of spendCountersOf(g, nowIso)) {
        await db
          .insertInto('spend_counters')
          .values({ grant_id: g.grant_id, day: counter.day, currency: counter.currency, reserved_minor: counter.minor })
          .execute();
        // the fixture's counter, backed by no decision of the chain: vouched for in the instance's memory of
        // counters, as the service does for the values it writes itself (services/authorize/chained-spend.ts)
        spendMemoryOf(rt.ctx).set(g.grant_id, counter.day, counter.minor);
      }
    }
    await db.deleteFrom('approvals').execute();
    const a = snapshot.approval;
    if (a) {
      const decided = a.status === 'approved' || a.status === 'rejected' || a.status === 'consumed';
      await db
        .insertInto('approvals')
        .values({
          approval_id: a.approval_id,
          policy_decision_id: a.policy_decision_id,
          principal_entity_id: a.bound.principal_entity_id,
          actor_entity_id: a.bound.actor_entity_id,
          status: a.status,
          reason: 'amount_above_approval_threshold',
          bound: JSON.stringify(a.bound),
          expires_at: new Date(a.expires_at).toISOString(),
          decided_at: decided ? nowIso : null,
          sca_reference: null,
          consumed_by: null,
          created_at: nowIso,
          updated_at: nowIso,
        })
        .execute();
      // The row is the fixture's, not the service's: no chained answer or creating decision backs it. Vouch for it
      // in the instance's memory of chained states, as the service does for what it writes itself
      // (services/authorize/chained-approval.ts), so authorize honours it as the vector's snapshot says.
      const chained = chainedStateCacheOf(rt.ctx);
      chained.add(approvedKey(a.approval_id));
      chained.add(boundKey(a.approval_id, JSON.stringify(a.bound)));
    }
  };
  await resetMutableState();

  const created = snapshot.payload.created ?? Math.floor(Date.parse(now) / 1000);
  const signer = createRequestSigner({
    keyId: snapshot.actor?.entity_id ?? canonicalEntity(request.actor_entity_id) ?? request.actor_entity_id,
    privateJwk,
    now: () => created,
  });
  return { admin, runtimeToken, signer, resetMutableState };
}

interface SeededCounter {
  day: string;
  currency: string;
  minor: number;
}

/**
 * The spend counters behind a link's `spent_today` (today's row) and, for a link whose own scope has a budget, its
 * `budget_spent` (the rest on yesterday's row, inside the period). No row for zero: the server counts from zero.
 */
export function spendCountersOf(g: GrantSnapshot, nowIso: string): SeededCounter[] {
  const day = nowIso.slice(0, 10);
  const counters: SeededCounter[] = [];
  if (g.spent_today.minor !== 0) counters.push({ day, currency: g.spent_today.currency, minor: g.spent_today.minor });
  const budget = g.scope.budget;
  if (!budget) return counters;
  if (!g.budget_spent) throw new Error(`grant ${g.grant_id}: a budgeted link without budget_spent cannot be loaded`);
  const before = g.budget_spent.minor - g.spent_today.minor;
  if (before < 0) {
    throw new Error(
      `grant ${g.grant_id}: budget_spent ${g.budget_spent.minor} is below spent_today ${g.spent_today.minor}, ` +
        `which the ${budget.period} period includes`,
    );
  }
  if (before === 0) return counters;
  const yesterday = previousDay(day);
  const start = budgetPeriodStart(budget.period, nowIso);
  if (start !== null && start > yesterday) {
    throw new Error(`grant ${g.grant_id}: the ${budget.period} period starts today, so budget_spent is spent_today`);
  }
  counters.push({ day: yesterday, currency: g.budget_spent.currency, minor: before });
  return counters;
}

/**
 * The mandates row of every grant made from a mandate or allowance, as POST /v1/mandates and POST /v1/allowances
 * write it (services/mandates/create-mandate.ts, services/allowances/create-allowance.ts) but for the document:
 * the vector gives only its digest, so the row holds that digest and a placeholder document. A used single-use
 * allowance names the decision that used it (`used_by`); none of the walked vectors replays a purchase under an
 * unused one, so the row is not part of the mutable state.
 */
async function insertMandateRows(rt: TestRuntime, grants: readonly VectorGrant[], nowIso: string): Promise<void> {
  const byId = new Map(grants.map((g) => [g.grant_id, g]));
  const rootOf = (g: VectorGrant): string => {
    let at = g;
    while (at.parent_grant_id !== null && byId.has(at.parent_grant_id)) at = byId.get(at.parent_grant_id)!;
    return at.grant_id;
  };
  for (const g of grants) {
    const m = g.mandate;
    if (!m) continue;
    if (g.parent_grant_id === null) throw new Error(`grant ${g.grant_id}: a mandate's grant always has a parent`);
    await rt.ctx.store.db
      .insertInto('mandates')
      .values({
        mandate_id: m.mandate_id,
        format: m.format,
        digest: m.digest,
        issuer: m.format === 'ap2' ? 'https://issuer.vectors.example' : null,
        principal_entity_id: g.principal_entity_id,
        actor_entity_id: g.actor_entity_id,
        parent_grant_id: g.parent_grant_id,
        root_grant_id: rootOf(g),
        grant_id: g.grant_id,
        constraints: JSON.stringify({ payees: {} }),
        document: `vector document of ${m.mandate_id}`,
        single_use: m.single_use ? 1 : 0,
        checkout_session_id: null,
        vaulted_token_id: m.format === 'acp' ? 'vt_vector' : null,
        idempotency_key: null,
        expires_at: g.scope.valid_until === undefined ? null : new Date(g.scope.valid_until).toISOString(),
        used_by: m.used ? 'ns:decision:01963a4f-0c00-7c00-8a00-000000000003' : null,
        created_at: nowIso,
      })
      .execute();
  }
}

function activeEntity(id: string): EntitySnapshot {
  const parsed = tryParseEntityId(id);
  if (!parsed) throw new Error(`not an entity id: ${id}`);
  return { entity_id: parsed.id, type: parsed.type, state: 'active' };
}

function canonicalEntity(id: string): string | undefined {
  return tryParseEntityId(id)?.id;
}

function localTokenOf(ref: string): string {
  const local = tryParseCardTokenRef(ref);
  if (local === undefined) throw new Error(`not a card token reference: ${ref}`);
  return local;
}

/**
 * `grant_lookup: capability_not_granted` means grants exist from this principal to this actor, none covering the
 * action; the snapshot then lists no grant, so one is made up: a sub-capability of another action.
 */
function uncoveringGrant(actor: string, principal: string, action: PurchaseAction, instrument?: string): VectorGrant {
  const other: PurchaseAction = action === 'search' ? 'compare' : 'search';
  return {
    grant_id: 'ns:authority:grant:01963a4e-0000-7000-8000-000000000001',
    parent_grant_id: null,
    principal_entity_id: canonicalEntity(principal) ?? principal,
    actor_entity_id: canonicalEntity(actor) ?? actor,
    capability_id: `ns:capability:purchase:${other}`,
    resource_id: `ns:credential:card-token:${instrument ? localTokenOf(instrument) : 'tok-1'}`,
    state: 'active',
    scope: {},
    depth: 0,
    signature_valid: true,
  };
}

/**
 * The agent's metadata attestation the snapshot holds (aar-decide/1.5.0), signed with the agent's key and accepted
 * through POST /v1/entities/{id}/metadata-attestations as an agent platform would send it. The snapshot the server
 * then loads has the vector's fields with this run's digest, id and key (recorded-differences.ts compares the fields).
 */
async function attestAgentMetadata(
  admin: ApiCall,
  snapshot: DecisionSnapshot,
  agentKey: KeyObject,
  nowIso: string,
): Promise<void> {
  const attested = snapshot.agent_metadata;
  if (!attested || !snapshot.actor) return;
  const agent = snapshot.actor.entity_id;
  const doc = await signDocument(
    {
      schema_version: 'ns.agent_metadata_attestation.v1',
      agent_entity_id: agent,
      model: attested.model,
      software_version: attested.software_version,
      operator: attested.operator,
      issued_at: nowIso,
    },
    { keyId: agent, sign: async (m) => new Uint8Array(nodeSign(null, m, agentKey)) },
  );
  await admin('POST', `/v1/entities/${agent}/metadata-attestations`, doc);
}
