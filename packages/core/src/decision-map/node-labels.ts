/**
 * The seven nodes of a decision map, each derived from the request, the snapshot and decide's diagnostics.
 * Labels carry ids, states, categories, jurisdictions and amounts, never a display name. Every value read from the
 * snapshot is guarded: the map is built for denies on malformed snapshots too. The delegation and scope nodes name
 * the chain that decided when several grants covered the request (decidingChain).
 */
import { decidingChain } from '../decide/deciding-chain.ts';
import { isRecord } from '../decide/guards.ts';
import { REASON_CODES, isReasonCode, isRuleReason, type CheckName, type ReasonCode } from '../decide/reason-codes.ts';
import { AGENT_METADATA_DIGEST_PATTERN } from '../agent-metadata/attestation.ts';
import type {
  AgentMetadata,
  CheckDiagnostic,
  DecisionRequest,
  DecisionResult,
  DecisionSnapshot,
  MinorMoney,
} from '../decide/types.ts';
import { tryParseEntityId } from '../ids/identifiers.ts';
import { policyDocumentDigest } from '../rules/document-digest.ts';
import { formatMinor } from './format-minor.ts';
import type { DecisionMapNode, PolicyNodePack } from './types.ts';

export interface NodeInput {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  result: DecisionResult;
}

const GRANT_PREFIX = 'ns:authority:grant:';
const DELEGATION_PREFIX = 'ns:delegation:';
const NO_AUTHORITY_REF = 'ns:state:no_authority';

export function principalNode({ request, snapshot, result }: NodeInput): DecisionMapNode {
  const short = entityLabel('principal', snapshot.principal, check(result, 'entities'), 'principal_inactive');
  return { type: 'principal', ref: entityRef(request.principal_entity_id), short };
}

export function actorNode({ request, snapshot, result }: NodeInput): DecisionMapNode {
  const entities = check(result, 'entities');
  const short =
    entities.reason === 'agent_metadata_mismatch'
      ? 'agent metadata mismatch'
      : entityLabel('agent', snapshot.actor, entities, 'actor_inactive');
  const node: DecisionMapNode = { type: 'actor', ref: entityRef(request.actor_entity_id), short };
  const attested = attestedMetadataOf(snapshot);
  if (attested) {
    node.agent_metadata = attested.metadata;
    node.attestation_digest = attested.digest;
  }
  return node;
}

/**
 * The snapshot's attested agent metadata (aar-decide/1.5.0) when well formed: the three fields and the digest.
 * Malformed or absent: undefined, and the evidence check then finds the pack's attestation unbound.
 */
function attestedMetadataOf(snapshot: DecisionSnapshot): { metadata: AgentMetadata; digest: string } | undefined {
  const value: unknown = Object.hasOwn(snapshot, 'agent_metadata') ? snapshot.agent_metadata : undefined;
  if (!isRecord(value) || typeof value.digest !== 'string' || !AGENT_METADATA_DIGEST_PATTERN.test(value.digest)) {
    return undefined;
  }
  const { model, software_version, operator } = value;
  if (typeof model !== 'string' || typeof software_version !== 'string' || typeof operator !== 'string')
    return undefined;
  return { metadata: { model, software_version, operator }, digest: value.digest };
}

export function delegationNode({ snapshot, result }: NodeInput): DecisionMapNode {
  const grants = decidingChain(snapshot, result);
  const leaf: unknown = grants[grants.length - 1];
  if (!isRecord(leaf) || typeof leaf.grant_id !== 'string') {
    const authority = check(result, 'authority');
    return {
      type: 'delegation',
      ref: NO_AUTHORITY_REF,
      short: authority.outcome === 'skip' ? 'not checked' : 'no grant',
    };
  }
  const mandate = mandateOf(leaf);
  const base =
    (grants.length === 1 ? 'direct grant' : `${grants.length}-link chain`) + (mandate ? `, ${mandate.label}` : '');
  const chain = check(result, 'chain');
  const suffix: Partial<Record<ReasonCode, string>> = {
    authority_revoked: intermediaryStopped(grants) ? ', intermediary inactive' : ', revoked',
    authority_expired: ', expired',
    delegation_invalid: ', invalid',
    mandate_revoked: ', revoked',
    mandate_expired: ', expired',
    allowance_used: ', used',
  };
  const short =
    chain.outcome === 'skip' ? `${base}, not checked` : base + ((chain.reason && suffix[chain.reason]) ?? '');
  // A direct grant is its own delegation; a chain is named as a whole (CONTRACT section 11): `ns:delegation:<uuid>`
  // is the chain that ends at grant `ns:authority:grant:<uuid>` (GET /v1/grants/{grant}/chain, /v1/delegations/{id}).
  const ref =
    grants.length > 1 && leaf.grant_id.startsWith(GRANT_PREFIX)
      ? `${DELEGATION_PREFIX}${leaf.grant_id.slice(GRANT_PREFIX.length)}`
      : leaf.grant_id;
  const node: DecisionMapNode = { type: 'delegation', ref, short };
  if (mandate) node.mandate_ref = mandate.id;
  return node;
}

/**
 * The mandate binding of the deciding leaf (aar-decide/1.4.0): its id and `AP2 mandate` / `ACP allowance`; undefined
 * when the leaf carries none or its id is not a string (a malformed binding is then not shown as a mandate).
 */
function mandateOf(leaf: Record<string, unknown>): { id: string; label: string } | undefined {
  const mandate: unknown = Object.hasOwn(leaf, 'mandate') ? leaf.mandate : undefined;
  if (!isRecord(mandate) || typeof mandate.mandate_id !== 'string' || mandate.mandate_id.length === 0) return undefined;
  const label = mandate.format === 'acp' ? 'ACP allowance' : mandate.format === 'ap2' ? 'AP2 mandate' : 'mandate';
  return { id: mandate.mandate_id.slice(0, 128), label };
}

/** Every link active, but some intermediary (the actor of a link that delegated further) is not. */
function intermediaryStopped(grants: readonly unknown[]): boolean {
  const links = grants.filter(isRecord);
  if (links.some((g) => g.state !== 'active')) return false;
  return links.slice(0, -1).some((g) => g.actor_state !== undefined && g.actor_state !== 'active');
}

export function capabilityNode({ request, result }: NodeInput): DecisionMapNode {
  const action = typeof request.action === 'string' ? request.action : 'unknown';
  const outcome = check(result, 'authority').outcome;
  const status = outcome === 'pass' ? 'granted' : outcome === 'fail' ? 'not granted' : 'requested';
  return { type: 'capability', ref: String(request.subject), short: `purchase.${action} ${status}` };
}

export function scopeNode({ request, snapshot, result }: NodeInput): DecisionMapNode {
  const grants = decidingChain(snapshot, result);
  const leaf: unknown = grants[grants.length - 1];
  const leafId = isRecord(leaf) && typeof leaf.grant_id === 'string' ? leaf.grant_id : undefined;
  const ref = `ns:scope:${leafId?.startsWith(GRANT_PREFIX) ? leafId.slice(GRANT_PREFIX.length) : 'none'}`;
  return { type: 'scope', ref, short: scopeLabel(request, snapshot, result) };
}

export function stateNode({ snapshot }: NodeInput): DecisionMapNode {
  const risk: unknown = snapshot.risk;
  const subjects = ['actor', 'principal', 'instrument'] as const;
  const states = subjects.map((who) => {
    const value = isRecord(risk) ? risk[who] : undefined;
    return value === 'normal' || value === 'elevated' || value === 'blocked' ? value : 'unknown';
  });
  const worst = (['unknown', 'blocked', 'elevated'] as const).find((s) => states.includes(s)) ?? 'normal';
  const who = subjects.filter((_, i) => states[i] === worst);
  const short = worst === 'normal' ? 'risk normal' : `risk ${worst}: ${who.join(', ')}`;
  return { type: 'state', ref: `ns:state:risk_${worst}`, short };
}

export function policyNode({ snapshot, result }: NodeInput): DecisionMapNode {
  const policy: unknown = snapshot.policy;
  const id = isRecord(policy) ? policy.policy_id : undefined;
  const ref = typeof id === 'string' && /^ns:policy:[A-Za-z0-9._-]{1,128}$/.test(id) ? id : 'ns:policy:unknown';
  const version = isRecord(policy) && typeof policy.version === 'string' ? policy.version.slice(0, 32) : '?';
  const approvalLabels: Partial<Record<ReasonCode, string>> = {
    amount_above_approval_threshold: 'approval required above threshold',
    risk_state_elevated: 'approval required for elevated risk',
    approval_pending: 'approval pending',
    approval_rejected: 'approval rejected',
    approval_expired: 'approval expired',
    approval_mismatch: 'approval does not match',
    approved_by_principal: 'approved by principal',
  };
  const threshold = result.effective_scope?.requires_approval_above;
  let short = (isReasonCode(result.reason) ? approvalLabels[result.reason] : undefined) ?? `policy version ${version}`;
  if (result.reason === 'amount_above_approval_threshold' && isMoney(threshold)) {
    short = `approval required above ${money(threshold)}`;
  }
  if (isRuleReason(result.reason)) {
    // the deciding rule pack's own reason (aar-decide/1.3.0)
    const verb = result.decision === 'deny' ? 'denied' : 'approval required';
    short = `${verb} by rule ${result.reason.slice(0, 96)}`;
  }
  const node: DecisionMapNode = { type: 'policy', ref, short };
  const packs = policyNodePacks(snapshot);
  if (packs) node.packs = packs;
  return node;
}

/**
 * `packs` of the policy node: each pack of `snapshot.policy_set` with the digest of the document it carries. A pack
 * whose document cannot be digested gets digest `""`, which no verification accepts.
 */
/**
 * Digests by document object. The server puts the same cached, never-mutated pack documents into every decision's
 * snapshot while the active packs stay the same, and digesting them (canonical JSON and SHA-256 of tens of KB) cost
 * more per decision than evaluating their rules. A map builder is never handed a document that changes afterwards;
 * verification (evidence/verify-policy-set.ts) always digests afresh.
 */
const DIGESTS = new WeakMap<object, string>();

export function policyNodePacks(snapshot: DecisionSnapshot): PolicyNodePack[] | undefined {
  const set: unknown = snapshot.policy_set;
  if (set === undefined) return undefined;
  const entries: unknown[] = isRecord(set) && Array.isArray(set.packs) ? set.packs : [];
  const packs: PolicyNodePack[] = [];
  for (const entry of entries) {
    if (!isRecord(entry) || !isRecord(entry.document)) continue;
    const doc = entry.document;
    let digest = DIGESTS.get(doc);
    if (digest === undefined) {
      try {
        digest = policyDocumentDigest(doc);
      } catch {
        // not canonical JSON: left empty, so verification reports the pack
        digest = '';
      }
      DIGESTS.set(doc, digest);
    }
    packs.push({
      pack_id: typeof doc.pack_id === 'string' ? doc.pack_id : '',
      version: typeof doc.version === 'string' ? doc.version : '',
      digest,
      mode: entry.mode === 'shadow' ? 'shadow' : 'enforce',
    });
  }
  return packs;
}

function scopeLabel(request: DecisionRequest, snapshot: DecisionSnapshot, result: DecisionResult): string {
  const scope = result.effective_scope;
  const merchant: unknown = snapshot.merchant;
  const category = isRecord(merchant) ? label(merchant.category) : '?';
  const jurisdiction = isRecord(merchant) ? label(merchant.jurisdiction) : '?';
  const amount = request.amount;
  switch (result.reason) {
    case 'merchant_unknown':
      return 'merchant unknown';
    case 'merchant_category_blocked':
      return `category ${category} blocked`;
    case 'merchant_category_not_allowed':
      return `category ${category} not allowed`;
    case 'jurisdiction_not_allowed':
      return `jurisdiction ${jurisdiction} not allowed`;
    case 'currency_mismatch':
      return isMoney(amount) ? `currency ${amount.currency} not granted` : 'currency not granted';
    case 'amount_above_agent_threshold':
      if (!isMoney(amount)) return 'amount missing';
      return isMoney(scope?.max_amount_per_purchase)
        ? `above ${money(scope.max_amount_per_purchase)} per purchase`
        : 'amount not within scope';
    case 'daily_limit_exceeded':
      return isMoney(scope?.max_daily_amount) ? `above ${money(scope.max_daily_amount)} per day` : 'above daily limit';
    case 'budget_exceeded':
      return 'above budget';
    case 'merchant_not_allowed':
      return 'merchant not allowed';
  }
  const decidedBefore = isReasonCode(result.reason) ? REASON_CODES[result.reason].check : 'rules';
  if (!scope || ['payload', 'entities', 'authority', 'chain'].includes(decidedBefore)) return 'not evaluated';
  if (isMoney(amount) && isMoney(scope.max_amount_per_purchase)) {
    return `within ${money(scope.max_amount_per_purchase)} per purchase`;
  }
  if (isMoney(amount) && isMoney(scope.max_daily_amount)) return `within ${money(scope.max_daily_amount)} per day`;
  return 'within attenuated scope';
}

function entityLabel(noun: string, entity: unknown, entities: CheckDiagnostic, reason: ReasonCode): string {
  if (entities.outcome === 'skip') return `${noun} not checked`;
  if (entities.reason !== reason) return `${noun} active`;
  const state = isRecord(entity) ? entity.state : undefined;
  return state === 'suspended' || state === 'tombstoned' ? `${noun} ${state}` : `${noun} not found`;
}

function check(result: DecisionResult, name: CheckName): CheckDiagnostic {
  const checks = result.diagnostics?.checks;
  return (Array.isArray(checks) ? checks.find((c) => c.check === name) : undefined) ?? { check: name, outcome: 'skip' };
}

function entityRef(id: unknown): string {
  return tryParseEntityId(id)?.id ?? String(id);
}

function isMoney(value: unknown): value is MinorMoney {
  return isRecord(value) && Number.isSafeInteger(value.minor) && typeof value.currency === 'string';
}

function money(value: MinorMoney): string {
  return formatMinor(value.minor, label(value.currency));
}

/** A snapshot string shown in a label, bounded; categories and jurisdictions are codes, never names. */
function label(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 32) : '?';
}
