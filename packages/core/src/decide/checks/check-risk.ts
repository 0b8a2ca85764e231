/**
 * Step 7: risk signals on actor, principal and card token. Any `blocked` denies; any `elevated` requires approval,
 * unless the request is the retry of an approval, in which case the approval check judges it. A risk state that is
 * missing or unknown counts as `blocked` (fail closed).
 */
import { isRecord } from '../guards.ts';
import { fail, pass, type CheckContext, type CheckVerdict } from './check-context.ts';

const SUBJECTS = ['actor', 'principal', 'instrument'] as const;

function stateOf(risk: unknown, who: (typeof SUBJECTS)[number]): 'normal' | 'elevated' | 'blocked' {
  const value = isRecord(risk) ? risk[who] : undefined;
  return value === 'normal' || value === 'elevated' ? value : 'blocked';
}

export function checkRisk(ctx: CheckContext): CheckVerdict {
  const risk: unknown = ctx.snapshot.risk;
  const states = SUBJECTS.map((who) => stateOf(risk, who));
  if (states[0] === 'normal' && states[1] === 'normal' && states[2] === 'normal') return pass('risk normal');
  const blocked = SUBJECTS.filter((_, i) => states[i] === 'blocked');
  if (blocked.length > 0) return fail('risk_state_blocked', `risk blocked: ${blocked.join(', ')}`);
  const elevated = SUBJECTS.filter((_, i) => states[i] === 'elevated');
  if (elevated.length === 0) return pass('risk normal');
  ctx.riskElevated = true;
  if (ctx.request.policy_decision_id === undefined) {
    return fail('risk_state_elevated', `risk elevated: ${elevated.join(', ')}`);
  }
  return pass(`risk elevated: ${elevated.join(', ')}; the named approval decides`);
}
