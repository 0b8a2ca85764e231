/**
 * The control coverage of one framework over a report's period: the compliance projection (project-compliance.ts)
 * run over the period's evidence packs batch by batch (a batch stays a bounded projection), its per-control pack
 * counts summed, and each status decided from the sums by the projection's own rules, so the coverage of packs
 * projected in several batches equals the projection of all of them at once (tested against it):
 * - `assessment: gap` / `not_applicable`: that status and the rule pack's reason;
 * - no pack projected: `gap`; no applicable pack: `not_applicable`; none satisfying: `gap`; some: `partially_satisfied`;
 *   all: `satisfied`, or `partially_satisfied` when the control's `coverage` is `partial`.
 * A report keeps counts only, never evidence pointers (a month of them would not be a bounded document): the
 * pointers are in the projection of any pack, `POST /v1/compliance/projections`.
 */
import { AarError } from '../errors/aar-error.ts';
import type { ControlStatus, ProjectionBody } from '../compliance/compliance-projection.ts';
import { rulePackReference } from '../compliance/project-compliance.ts';
import type { RuleControl, RulePack } from '../compliance/rule-pack.ts';
import type { ControlCoverage, FrameworkCoverage } from './compliance-report.ts';

/** Most evidence packs a report projects per framework; beyond, an evenly spaced sample of the period's packs. */
export const MAX_REPORT_PACKS = 2_000;
/** Packs per projection batch (the size `POST /v1/compliance/projections` accepts at most). */
export const REPORT_PACK_BATCH = 200;

function controlCoverage(control: RuleControl, projected: number, applicable: number, satisfying: number) {
  const base = { control_id: control.control_id, title: control.title };
  const out = (status: ControlStatus, reason: string | undefined, a = applicable, s = satisfying): ControlCoverage => ({
    ...base,
    status,
    ...(reason === undefined ? {} : { reason }),
    packs: { applicable: a, satisfying: s },
  });
  if (control.assessment === 'gap')
    return out('gap', control.reason ?? 'the runtime cannot evidence this control', 0, 0);
  if (control.assessment === 'not_applicable') {
    return out('not_applicable', control.reason ?? 'the control does not concern an authorization runtime', 0, 0);
  }
  if (projected === 0) return out('gap', 'no evidence pack in the period', 0, 0);
  if (applicable === 0) {
    return out('not_applicable', control.not_applicable_reason ?? 'no pack in the period is one this control concerns');
  }
  if (satisfying === 0) return out('gap', `none of the ${applicable} applicable packs holds the evidence`);
  if (satisfying < applicable) {
    return out('partially_satisfied', `${satisfying} of ${applicable} applicable packs hold the evidence`);
  }
  if (control.coverage === 'partial') return out('partially_satisfied', control.reason ?? 'partial coverage');
  return out('satisfied', undefined);
}

/**
 * Merges the projections of `batches` (each `projectCompliance(rulePack, packs)` over a disjoint batch of the
 * period's packs) into the framework's coverage. `inPeriod` is the count of the period's decisions.
 */
export function frameworkCoverage(
  rulePack: RulePack,
  batches: readonly ProjectionBody[],
  inPeriod: number,
): FrameworkCoverage {
  const projected = batches.reduce((n, b) => n + b.evidence_pack_ids.length, 0);
  if (!Number.isSafeInteger(inPeriod) || inPeriod < projected) {
    throw new AarError('internal', 'a report cannot project more packs than the period holds');
  }
  const controls = rulePack.controls.map((control, i) => {
    let applicable = 0;
    let satisfying = 0;
    for (const batch of batches) {
      const c = batch.controls[i];
      if (!c || c.control_id !== control.control_id) {
        throw new AarError('internal', `projection batch is not of rule pack ${rulePack.rule_pack_id}`);
      }
      applicable += c.packs.applicable;
      satisfying += c.packs.satisfying;
    }
    return controlCoverage(control, projected, applicable, satisfying);
  });
  const summary: Record<ControlStatus, number> = { satisfied: 0, partially_satisfied: 0, not_applicable: 0, gap: 0 };
  for (const c of controls) summary[c.status]++;
  return {
    framework: rulePack.framework,
    rule_pack: rulePackReference(rulePack),
    evidence_packs: { in_period: inPeriod, projected },
    summary,
    controls,
  };
}

/**
 * Which of `count` packs (in period order) a report projects: all when there are at most `max`, else `max` evenly
 * spaced ones (ranks 1-based, always the first): a sample across the whole period, not its first days.
 */
export function sampledRanks(count: number, max = MAX_REPORT_PACKS): { all: true } | { all: false; step: number } {
  if (count <= max) return { all: true };
  return { all: false, step: Math.ceil(count / max) };
}
