/**
 * project(rulePack, packs) -> a status per control with the evidence pointers that justify it. Pure: the same rule
 * pack and packs give the same body on every instance, in the SDK and in the browser.
 * How a status is decided (docs/compliance.md):
 * - `assessment: gap` / `not_applicable`: that status and the pack's reason, whatever the packs hold. We never claim a
 *   control the runtime cannot show.
 * - no pack selected: `gap` (nothing evidences anything). No pack the control concerns: `not_applicable`.
 * - no applicable pack holds the evidence: `gap`; some but not all: `partially_satisfied`; all: `satisfied`, or
 *   `partially_satisfied` when the rule pack says the control asks more than a pack can show (`coverage: partial`).
 * INVARIANT: every pointer in `evidence` resolves inside the pack it names (expansion follows only what exists).
 * Packs are the caller's to verify first (signatures, audit proofs): this reads them, it does not trust-check them.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { AarError } from '../errors/aar-error.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import type {
  ControlProjection,
  ControlStatus,
  EvidenceReference,
  ProjectionBody,
  RulePackReference,
} from './compliance-projection.ts';
import { evaluatePredicate } from './evaluate-predicate.ts';
import { expandPointerTemplate } from './expand-pointer-template.ts';
import type { EvidenceRequirement, RuleControl, RulePack } from './rule-pack.ts';

/** Unmet requirements listed per control: enough to act on, bounded whatever the selection's size. */
export const MAX_UNMET = 20;

interface RequirementOutcome {
  passed: boolean;
  /** on a pass: the pointers that show it; on a failure: the first that failed (or the template, when absent) */
  pointers: string[];
}

function checkRequirement(pack: unknown, requirement: EvidenceRequirement): RequirementOutcome {
  const expansions = expandPointerTemplate(pack, requirement.pointer);
  if (expansions === undefined) {
    throw new AarError('internal', `rule pack pointer \`${requirement.pointer}\` is not an rfc 6901 pointer`);
  }
  if (expansions.length === 0) return { passed: false, pointers: [requirement.pointer] };
  const passing = expansions.filter((e) => evaluatePredicate(requirement.predicate, e.value, pack));
  if (requirement.match === 'any') {
    return passing.length > 0
      ? { passed: true, pointers: passing.map((e) => e.pointer) }
      : { passed: false, pointers: [expansions[0]!.pointer] };
  }
  if (passing.length === expansions.length) return { passed: true, pointers: passing.map((e) => e.pointer) };
  const failed = expansions.find((e) => !passing.includes(e))!;
  return { passed: false, pointers: [failed.pointer] };
}

export function rulePackReference(pack: RulePack): RulePackReference {
  return {
    rule_pack_id: pack.rule_pack_id,
    framework: pack.framework,
    version: pack.version,
    digest: `sha-256:${encodeBase64Url(sha256(canonicalBytes(pack)))}`,
  };
}

function packIdOf(pack: unknown, index: number): string {
  const id = (pack as { evidence_pack_id?: unknown } | null)?.evidence_pack_id;
  if (typeof id !== 'string') throw new AarError('internal', `pack ${index} has no \`evidence_pack_id\``);
  return id;
}

function projectControl(control: RuleControl, packs: readonly unknown[], ids: readonly string[]): ControlProjection {
  const base = { control_id: control.control_id, title: control.title };
  const fixed = (status: ControlStatus, reason: string): ControlProjection => ({
    ...base,
    status,
    reason,
    packs: { applicable: 0, satisfying: 0 },
    evidence: [],
    unmet: [],
  });
  if (control.assessment === 'gap') return fixed('gap', control.reason ?? 'the runtime cannot evidence this control');
  if (control.assessment === 'not_applicable') {
    return fixed('not_applicable', control.reason ?? 'the control does not concern an authorization runtime');
  }
  if (packs.length === 0) return fixed('gap', 'no evidence pack in the selection');

  const evidence: EvidenceReference[] = [];
  const unmet: EvidenceReference[] = [];
  let applicable = 0;
  let satisfying = 0;
  packs.forEach((pack, i) => {
    const id = ids[i]!;
    const applies = (control.evidence.applies_when ?? []).every((r) => checkRequirement(pack, r).passed);
    if (!applies) return;
    applicable++;
    const shown: EvidenceReference[] = [];
    let holds = true;
    for (const requirement of control.evidence.requirements) {
      const outcome = checkRequirement(pack, requirement);
      const refs = outcome.pointers.map((pointer) => ({ evidence_pack_id: id, pointer, note: requirement.note }));
      if (outcome.passed) {
        shown.push(...refs);
      } else {
        holds = false;
        if (unmet.length < MAX_UNMET) unmet.push(...refs.slice(0, MAX_UNMET - unmet.length));
      }
    }
    if (holds) {
      satisfying++;
      evidence.push(...shown);
    }
  });

  const counts = { applicable, satisfying };
  if (applicable === 0) {
    const reason = control.not_applicable_reason ?? 'no pack in the selection is one this control concerns';
    return { ...base, status: 'not_applicable', reason, packs: counts, evidence: [], unmet: [] };
  }
  const result = (status: ControlStatus, reason?: string): ControlProjection => ({
    ...base,
    status,
    ...(reason === undefined ? {} : { reason }),
    packs: counts,
    evidence,
    unmet,
  });
  if (satisfying === 0) return result('gap', `none of the ${applicable} applicable packs holds the evidence`);
  if (satisfying < applicable) {
    return result('partially_satisfied', `${satisfying} of ${applicable} applicable packs hold the evidence`);
  }
  if (control.coverage === 'partial') return result('partially_satisfied', control.reason ?? 'partial coverage');
  return result('satisfied');
}

/** Projects `packs` (parsed `ns.evidence_pack.v1` documents) onto every control of `rulePack`, in the pack's order. */
export function projectCompliance(rulePack: RulePack, packs: readonly unknown[]): ProjectionBody {
  const ids = packs.map(packIdOf);
  const controls = rulePack.controls.map((control) => projectControl(control, packs, ids));
  const summary: Record<ControlStatus, number> = { satisfied: 0, partially_satisfied: 0, not_applicable: 0, gap: 0 };
  for (const c of controls) summary[c.status]++;
  return {
    framework: rulePack.framework,
    rule_pack: rulePackReference(rulePack),
    evidence_pack_ids: ids,
    summary,
    controls,
  };
}
