/**
 * Reads every fact decide needs (CONTRACT section 3: "the snapshot holds every fact it read"), except those that
 * must be read under lock inside the decision's transaction: whether the nonce is new, today's spend, and the
 * purchase counters an active rule pack reads (purchase-counters.ts).
 * A grant made from a mandate carries its binding (`mandate`), as its mandates row says (DESIGN-29 decision 3).
 * Attacker assumption: ids in the request are the caller's; each is looked up, never trusted.
 */
import type {
  DecisionFacts,
  DecisionRequest,
  DecisionSnapshot,
  EntitySnapshot,
  GrantMandate,
  GrantSnapshot,
  PolicySetSnapshot,
  RiskState,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { GrantRow } from '../grants/grant-rows.ts';
import type { StoredScope } from '../grants/grant-scope.ts';
import type { FactReader } from './cached-facts.ts';
import { loadGrantChain, mandateIdOf } from './grant-chain.ts';
import type { MandateRow, NamedMandate } from './named-mandate.ts';
import type { GrantLinkVerifier } from './grant-link-verifier.ts';
import { toDecideScope } from './to-decide-scope.ts';
import { loadActivePolicySet } from '../policy/active-policy-set.ts';
import { localTimeOf } from './local-time.ts';
import { currentAgentMetadata } from '../agent-metadata/current-metadata.ts';

/** decide's snapshot with the rule packs' additions (aar-decide/1.3.0, DESIGN-27 §3): absent when no pack is active */
export type SnapshotWithPolicy = DecisionSnapshot & { policy_set?: PolicySetSnapshot; facts?: DecisionFacts };

export interface LoadedSnapshot {
  snapshot: SnapshotWithPolicy;
  /** an active rule reads `facts.counters`: commit-decision.ts counts them under lock, in the decision's transaction */
  readsCounters: boolean;
  /** the mandates the chains' grants were made from (their `used` is read again under lock: mandate-use.ts) */
  mandates: MandateRow[];
}

export const POLICY = { policy_id: 'ns:policy:card-purchase-default', version: '1' } as const;

export async function loadSnapshot(
  ctx: AppContext,
  verifier: GrantLinkVerifier,
  request: DecisionRequest,
  payload: DecisionSnapshot['payload'],
  now: Date,
  facts: FactReader,
  /** the mandate the request names (named-mandate.ts); absent when it names none */
  named?: NamedMandate,
): Promise<LoadedSnapshot> {
  const db = ctx.store.db;
  const nowIso = now.toISOString();
  const parties = { principal: request.principal_entity_id, actor: request.actor_entity_id };
  const instrumentId = request.instrument_id;
  // facts come from the instance's cache at the version authorize read first (cached-facts.ts); a hit is synchronous
  const [principalRow, actorRow, instrument, chain, merchant, risks] = await Promise.all([
    facts.entity(parties.principal),
    facts.entity(parties.actor),
    instrumentId ? facts.instrument(instrumentId) : null,
    loadGrantChain(
      db,
      verifier.grants,
      request,
      nowIso,
      facts.version,
      named ? (named.row?.grant_id ?? null) : undefined,
    ),
    request.merchant_id ? facts.merchant(request.merchant_id) : null,
    // risk of principal and actor, and of the instrument when the request names one
    Promise.all(
      [parties.principal, parties.actor, ...(instrumentId ? [instrumentId] : [])].map((id) => facts.risk(id)),
    ),
  ]);
  const entity = (row: typeof principalRow): EntitySnapshot | null =>
    row ? { entity_id: row.entity_id, type: row.type, state: row.state } : null;
  const risk = (id: string | undefined): RiskState => {
    const row = risks.find((r) => r !== null && r.entity_id === id);
    if (!row || (row.expires_at !== null && row.expires_at <= nowIso)) return 'normal';
    return row.risk_state;
  };
  // Intermediaries (actors of every link but the leaf) are read fresh, like the principal and actor: suspending one
  // stops every grant below it at once, without any grant being rewritten (the version moves with the entity).
  const chains = [chain.rows, ...chain.alternatives];
  const intermediaryIds = [...new Set(chains.flatMap((rows) => rows.slice(0, -1).map((row) => row.actor_entity_id)))];
  const intermediaries = (await Promise.all(intermediaryIds.map((id) => facts.entity(id)))).filter((e) => e !== null);
  const mandates = await mandatesOf(ctx, chains, named);
  // aar-decide/1.5.0: the actor's latest attestation, verified against its registered key (absent when none)
  const attested = await currentAgentMetadata(db, verifier.grants, facts.version, actorRow);
  const toSnapshots = (rows: GrantRow[]): Promise<GrantSnapshot[]> =>
    Promise.all(
      rows.map(async (row, i) => {
        const scope = JSON.parse(row.scope) as StoredScope;
        return {
          grant_id: row.grant_id,
          parent_grant_id: row.parent_grant_id,
          principal_entity_id: row.principal_entity_id,
          actor_entity_id: row.actor_entity_id,
          capability_id: row.capability_id,
          resource_id: row.resource_id,
          state: row.state,
          scope: toDecideScope(scope),
          spent_today: { minor: 0, currency: currencyOf(scope, request) },
          depth: row.depth,
          signature_valid: await verifier.isTrusted(row, rows[i - 1]),
          ...mandateBinding(row, mandates),
          ...(i < rows.length - 1
            ? {
                // an intermediary missing from the store reads as tombstoned: fail closed
                actor_state: intermediaries.find((e) => e.entity_id === row.actor_entity_id)?.state ?? 'tombstoned',
              }
            : {}),
        };
      }),
    );
  const grants = await toSnapshots(chain.rows);
  const alternatives = await Promise.all(chain.alternatives.map(toSnapshots));
  // The rule packs active for the principal and the covering grants, at the version read first (cached per version:
  // with no pack active, a known target costs no query). The local time only when a rule reads it.
  const active = await loadActivePolicySet(
    ctx,
    { principal_entity_id: parties.principal, grant_ids: chains.flatMap((rows) => rows.map((row) => row.grant_id)) },
    facts.version,
  );
  const policy: Pick<SnapshotWithPolicy, 'policy_set' | 'facts'> = active
    ? {
        policy_set: active.policySet,
        ...(active.readsLocalTime ? { facts: { local_time: localTimeOf(now, principalRow?.time_zone ?? null) } } : {}),
      }
    : {};
  const snapshot: SnapshotWithPolicy = {
    payload,
    principal: entity(principalRow),
    actor: entity(actorRow),
    // copies: the cached rows are shared by every request
    instrument: instrument ? { ...instrument } : null,
    grants,
    // only when several grants cover the request: a snapshot with one chain keeps its pre-1.2.0 shape
    ...(alternatives.length > 0 ? { alternatives } : {}),
    grant_lookup: chain.lookup,
    merchant: merchant ? { ...merchant } : null,
    risk: {
      actor: risk(request.actor_entity_id),
      principal: risk(request.principal_entity_id),
      instrument: risk(request.instrument_id),
    },
    approval: null,
    policy: { ...POLICY },
    ...policy,
    // a copy: the cached value is shared by every request
    ...(attested ? { agent_metadata: { ...attested, public_key_jwk: { ...attested.public_key_jwk } } } : {}),
  };
  return { snapshot, readsCounters: active?.readsCounters ?? false, mandates };
}

/** The mandates rows of the chains' grants made from one (usually the leaf of a request naming it, read already). */
async function mandatesOf(
  ctx: AppContext,
  chains: GrantRow[][],
  named: NamedMandate | undefined,
): Promise<MandateRow[]> {
  const ids = [...new Set(chains.flat().map(mandateIdOf))].filter((id) => id !== null);
  if (ids.length === 0) return [];
  const known = named?.row && ids.includes(named.row.mandate_id) ? [named.row] : [];
  const missing = ids.filter((id) => !known.some((row) => row.mandate_id === id));
  const read = missing.length
    ? await ctx.store.db.selectFrom('mandates').selectAll().where('mandate_id', 'in', missing).execute()
    : [];
  return [...known, ...read];
}

/**
 * A grant made from a mandate carries its binding (aar-decide/1.4.0 `GrantSnapshot.mandate`); `used` as read here,
 * read again under lock for a single-use one (mandate-use.ts). A grant whose mandate row is missing keeps a binding
 * that can only deny (fail closed): `used` true, empty digest.
 */
function mandateBinding(row: GrantRow, mandates: readonly MandateRow[]): { mandate?: GrantMandate } {
  const mandateId = mandateIdOf(row);
  if (mandateId === null) return {};
  const m = mandates.find((candidate) => candidate.mandate_id === mandateId && candidate.grant_id === row.grant_id);
  if (!m) return { mandate: { mandate_id: mandateId, format: 'ap2', digest: '', single_use: true, used: true } };
  return {
    mandate: {
      mandate_id: m.mandate_id,
      format: m.format,
      digest: m.digest,
      single_use: m.single_use === 1,
      used: m.used_by !== null,
    },
  };
}

/** A grant's currency: that of its limits; a grant without money limits counts spend in the request's currency. */
export function currencyOf(scope: StoredScope, request: DecisionRequest): string {
  return (
    scope.max_daily_amount?.currency ??
    scope.max_amount_per_purchase?.currency ??
    scope.requires_approval_above?.currency ??
    scope.budget?.currency ??
    request.amount?.currency ??
    'XXX'
  );
}
