/**
 * One decision as the tools hand it out: the service's authorize answer (CONTRACT section 3) with the reason in
 * words and the next step, and the signed decision map as the service signed it (ids, states and amounts only; a
 * card appears as its token id). Shared by authorize_purchase and await_approval, so both answer the same shape.
 */
import type { AuthorizeAnswer } from '../agent-session.ts';
import { nextStep, reasonInWords } from '../plain-words.ts';
import type { JsonSchema } from '../tool-kit.ts';

export const DECISIONS = ['allow_with_constraints', 'require_approval', 'deny'] as const;

export const decisionSchema: JsonSchema = {
  type: 'object',
  required: [
    'policy_decision_id',
    'decision',
    'reason',
    'explanation',
    'next_step',
    'obligations',
    'stop_conditions',
    'evidence_refs',
    'decision_map_ref',
    'audit_ref',
  ],
  properties: {
    policy_decision_id: { type: 'string', description: '`ns:decision:<uuid>`: GET /v1/decisions/{id}' },
    decision: { type: 'string', enum: [...DECISIONS] },
    reason: { type: 'string', description: 'a reason code of CONTRACT section 3, or `<pack>.<code>` of a rule' },
    explanation: { type: 'string', description: 'the reason in one plain sentence' },
    next_step: { type: 'string', description: 'what the agent may do now' },
    obligations: { type: 'array', items: { type: 'object' } },
    stop_conditions: { type: 'array', items: { type: 'string' } },
    evidence_refs: { type: 'array', items: { type: 'string' } },
    decision_map_ref: { type: 'string' },
    audit_ref: { type: 'string' },
    approval: {
      type: 'object',
      required: ['approval_id', 'status', 'expires_at'],
      properties: {
        approval_id: { type: 'string' },
        status: { type: 'string' },
        expires_at: { type: 'string' },
      },
    },
    decision_map: { type: 'object', description: 'the signed `ns.decision_map.v1`' },
  },
};

export type DecisionSummary = Record<string, unknown> & {
  policy_decision_id: string;
  decision: string;
  reason: string;
};

export function summarizeDecision(answer: AuthorizeAnswer): DecisionSummary {
  const a = answer as unknown as Record<string, unknown> & { decision: string; reason: string };
  return {
    policy_decision_id: String(a.policy_decision_id),
    decision: a.decision,
    reason: a.reason,
    explanation: reasonInWords(a.reason),
    next_step: nextStep(a.decision, a.reason),
    obligations: (a.obligations as unknown[]) ?? [],
    stop_conditions: (a.stop_conditions as unknown[]) ?? [],
    evidence_refs: (a.evidence_refs as unknown[]) ?? [],
    decision_map_ref: String(a.decision_map_ref),
    audit_ref: String(a.audit_ref),
    ...(a.approval ? { approval: a.approval } : {}),
    ...(a.decision_map ? { decision_map: a.decision_map } : {}),
  };
}

export function decisionText(d: DecisionSummary): string {
  const lines = [`Decision ${d.decision} (${d.reason}): ${String(d.explanation)}`, `Next: ${String(d.next_step)}`];
  const approval = d.approval as { approval_id: string; expires_at: string } | undefined;
  if (approval) lines.push(`Approval ${approval.approval_id} is pending until ${approval.expires_at}.`);
  lines.push(`Recorded as ${d.policy_decision_id}.`);
  return lines.join('\n');
}
