/**
 * Which benchmark packs are active for the deployment: 0 rules (none), 10 (pack 1) or 50 (packs 1 to 5), switched
 * through the real endpoints. The active packs are always a prefix 1..k in activation order (a switch deactivates the
 * suffix beyond k or activates the missing suffix in order), so the 10-rule group's pack is the 50-rule group's first.
 */
import { activateForDeployment, deactivate, type AdminApi } from './policy-api.ts';
import { PACK_VERSION, RULES_PER_PACK, packName, type RuleVariant } from './bench-packs.ts';

export type RuleCount = 0 | 10 | 50;

export interface RuleSwitch {
  readonly rules: RuleCount;
  /** activates / deactivates until exactly `rules` rules (rules ÷ 10 packs) are active */
  set(rules: RuleCount): Promise<void>;
}

export function createRuleSwitch(api: AdminApi, variant: RuleVariant): RuleSwitch {
  const active: string[] = [];
  let rules: RuleCount = 0;
  return {
    get rules() {
      return rules;
    },
    async set(target: RuleCount) {
      const packs = target / RULES_PER_PACK;
      while (active.length > packs) await deactivate(api, active.pop()!);
      while (active.length < packs)
        active.push(await activateForDeployment(api, packName(variant, active.length + 1), PACK_VERSION));
      rules = target;
    },
  };
}

/** Alternating rounds (0, 10, 50, 50, 10, 0, ...): a drift of the machine over the run weighs on every group alike. */
export function alternatingSchedule(cycles: number): RuleCount[] {
  const out: RuleCount[] = [];
  for (let c = 0; c < cycles; c++) out.push(...([0, 10, 50, 50, 10, 0] as const));
  return out;
}
