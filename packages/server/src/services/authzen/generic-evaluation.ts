/**
 * The generic domain of CONTRACT section 20: an AuthZEN evaluation whose action is not a purchase goes to the active
 * `generic` rule packs (section 19: `permit` / `deny`, deny overrides, default deny) with `{ subject, action, resource,
 * context }` as `request`. The packs are those activated for the deployment (and, when `context.principal_entity_id`
 * names one, for that principal), read at the grant version the request read first, exactly as authorize reads its
 * purchase packs (active-policy-set.ts: every activation and document is checked against the chain before use).
 * Rules see `{ request, facts: {}, dict }`: nothing of the store but the dictionaries their pack declares.
 */
import { decideGeneric, policyDocumentDigest, type PolicySetSnapshot, type RulePackDocument } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { loadActivePolicySet } from '../policy/active-policy-set.ts';
import {
  ACCESS_DECISION_PREFIX,
  ACCESS_DECISION_SCHEMA,
  type PolicySetRef,
  type UnsignedAccessDecision,
} from './access-decision.ts';
import type { AuthzenEvaluation } from './authzen-model.ts';

/** The generic packs and dictionaries one request reads, per principal (a batch loads each once). */
export class GenericPolicies {
  readonly #sets = new Map<string, Promise<PolicySetSnapshot | undefined>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly version: number,
  ) {}

  of(principal: string | undefined): Promise<PolicySetSnapshot | undefined> {
    const key = principal ?? '';
    let set = this.#sets.get(key);
    if (!set) {
      set = loadActivePolicySet(this.ctx, { principal_entity_id: key, grant_ids: [] }, this.version).then(
        (active) => active?.policySet,
      );
      this.#sets.set(key, set);
    }
    return set;
  }
}

/** Decides one generic evaluation; the result is unsigned and unrecorded (record-access-decisions.ts does both). */
export function decideAccess(
  ctx: AppContext,
  ev: AuthzenEvaluation,
  policySet: PolicySetSnapshot | undefined,
  decidedAt: string,
): UnsignedAccessDecision {
  const request: Record<string, unknown> = {
    subject: ev.subject,
    action: ev.action,
    resource: ev.resource,
    context: ev.context ?? {},
  };
  const generic = (policySet?.packs ?? []).filter((p) => p.document.domain === 'generic');
  const enforce = generic.filter((p) => p.mode === 'enforce').map((p) => p.document);
  const dictionaries = policySet?.dictionaries ?? {};
  const context = { request, facts: {} };
  const outcome = decideGeneric(enforce, context, dictionaries);
  const shadow = generic
    .filter((p) => p.mode === 'shadow')
    .map((p) => {
      const would = decideGeneric([p.document], context, dictionaries);
      return {
        pack_id: p.document.pack_id,
        version: p.document.version,
        decision: would.decision,
        reason: reasonOf(would, [p.document]),
      };
    });
  const id = `${ACCESS_DECISION_PREFIX}${ctx.newUuid()}`;
  return {
    schema_version: ACCESS_DECISION_SCHEMA,
    access_decision_id: id,
    decided_at: decidedAt,
    audit_ref: `ns:audit:${ctx.newUuid()}`,
    request,
    decision: outcome.decision,
    reason: reasonOf(outcome, enforce),
    deciding_rules: outcome.rules,
    policy_set: policySetRef(generic, dictionaries),
    shadow,
  };
}

function reasonOf(outcome: ReturnType<typeof decideGeneric>, packs: readonly RulePackDocument[]): string {
  if (outcome.reason) return outcome.reason;
  if (outcome.decision === 'permit') return 'permitted';
  return packs.length === 0 ? 'no_active_policy' : 'no_permit';
}

function policySetRef(
  packs: PolicySetSnapshot['packs'],
  dictionaries: PolicySetSnapshot['dictionaries'],
): PolicySetRef {
  const declared = new Set(packs.flatMap((p) => p.document.dictionaries ?? []));
  return {
    packs: packs.map((p) => ({
      pack_id: p.document.pack_id,
      version: p.document.version,
      digest: policyDocumentDigest(p.document),
      mode: p.mode,
    })),
    dictionaries: Object.values(dictionaries)
      .filter((d) => declared.has(`${d.dictionary_id}@${d.version}`))
      .map((d) => ({ dictionary_id: d.dictionary_id, version: d.version, digest: d.digest })),
  };
}
