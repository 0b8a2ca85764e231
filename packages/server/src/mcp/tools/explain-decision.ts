/**
 * `explain_decision`: one of this agent's recorded decisions in plain words: the reason as a sentence, each node of
 * the signed decision map (principal, delegation, actor, capability, scope, state, policy) as the service labelled
 * it, each check the engine ran with its outcome, the conditions of the policy rules that matched (core's
 * describeRule over the rule the snapshot recorded), and what the agent may do next. It reads the record and the map
 * the service signed; it never re-decides.
 */
import type { DecisionReader } from '../decision-reader.ts';
import { nextStep, reasonInWords, ruleConditionInWords } from '../plain-words.ts';
import type { ToolDefinition } from '../tool-kit.ts';
import { ownDecision } from './own-decision.ts';

interface MapNode {
  type: string;
  ref: string;
  short: string;
}

interface RuleHit {
  pack_id: string;
  rule_id: string;
  effect: string;
}

export function explainDecisionTool(reader: DecisionReader): ToolDefinition {
  return {
    name: 'explain_decision',
    title: 'Explain a decision',
    description:
      'Explain one of this agent’s decisions in plain words: why it was allowed, denied or sent for approval, ' +
      'step by step along its signed decision map, and what to do next.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['policy_decision_id'],
      properties: { policy_decision_id: { type: 'string', pattern: '^ns:decision:[0-9a-f-]{36}$' } },
    },
    outputSchema: {
      type: 'object',
      required: ['policy_decision_id', 'decision', 'reason', 'summary', 'next_step', 'steps', 'checks'],
      properties: {
        policy_decision_id: { type: 'string' },
        decision: { type: 'string' },
        reason: { type: 'string' },
        summary: { type: 'string' },
        next_step: { type: 'string' },
        steps: {
          type: 'array',
          items: {
            type: 'object',
            required: ['node', 'ref', 'label'],
            properties: { node: { type: 'string' }, ref: { type: 'string' }, label: { type: 'string' } },
          },
        },
        checks: {
          type: 'array',
          items: {
            type: 'object',
            required: ['check', 'outcome'],
            properties: { check: { type: 'string' }, outcome: { type: 'string' }, detail: { type: 'string' } },
          },
        },
        rules: {
          type: 'array',
          items: {
            type: 'object',
            required: ['pack_id', 'rule_id', 'effect'],
            properties: {
              pack_id: { type: 'string' },
              rule_id: { type: 'string' },
              effect: { type: 'string' },
              condition: { type: 'string' },
            },
          },
        },
        obligations: { type: 'array', items: { type: 'object' } },
        stop_conditions: { type: 'array', items: { type: 'string' } },
        outcome: { type: 'string' },
        decided_at: { type: 'string' },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(raw, ctx) {
      const { policy_decision_id: id } = raw as { policy_decision_id: string };
      const record = await ownDecision(reader, id, ctx);
      const decision = String(record.decision);
      const reason = String(record.reason);
      const map = (await reader.decisionMap(String(record.decision_map_ref), ctx)) as { nodes?: MapNode[] };
      const diagnostics = (record.diagnostics ?? {}) as { checks?: unknown[]; rules?: RuleHit[] };
      const checks = (diagnostics.checks ?? []).map((c) => {
        const check = c as { check: string; outcome: string; detail?: string };
        return { check: check.check, outcome: check.outcome, ...(check.detail ? { detail: check.detail } : {}) };
      });
      const rules = (diagnostics.rules ?? []).map((hit) => {
        const condition = ruleConditionInWords(ruleOf(record, hit)?.when);
        return { pack_id: hit.pack_id, rule_id: hit.rule_id, effect: hit.effect, ...(condition ? { condition } : {}) };
      });
      const structured: Record<string, unknown> = {
        policy_decision_id: id,
        decision,
        reason,
        summary: reasonInWords(reason, declaredReason(record, reason)),
        next_step: nextStep(decision, reason),
        steps: (map.nodes ?? []).map((n) => ({ node: n.type, ref: n.ref, label: n.short })),
        checks,
        ...(rules.length > 0 ? { rules } : {}),
        obligations: (record.obligations as unknown[]) ?? [],
        stop_conditions: (record.stop_conditions as unknown[]) ?? [],
        ...(typeof record.outcome === 'string' ? { outcome: record.outcome } : {}),
        ...(typeof record.created_at === 'string' ? { decided_at: record.created_at } : {}),
      };
      return { structured, text: explanationText(structured) };
    },
  };
}

interface PackDocument {
  pack_id?: string;
  reasons?: Array<{ code: string; description: string }>;
  rules?: Array<{ rule_id: string; when: unknown }>;
}

function packs(record: Record<string, unknown>): PackDocument[] {
  const set = (record.snapshot as { policy_set?: { packs?: Array<{ document?: PackDocument }> } } | undefined)
    ?.policy_set;
  return (set?.packs ?? []).map((p) => p.document ?? {});
}

function ruleOf(record: Record<string, unknown>, hit: RuleHit): { when: unknown } | undefined {
  const pack = packs(record).find((p) => p.pack_id === hit.pack_id);
  return pack?.rules?.find((r) => r.rule_id === hit.rule_id);
}

/** A rule reason `<pack>.<code>`: the pack's own description of it, when the snapshot holds the pack. */
function declaredReason(record: Record<string, unknown>, reason: string): string | undefined {
  const dot = reason.indexOf('.');
  if (dot < 0) return undefined;
  const [name, code] = [reason.slice(0, dot), reason.slice(dot + 1)];
  const pack = packs(record).find((p) => p.pack_id === `ns:rule_pack:${name}`);
  return pack?.reasons?.find((r) => r.code === code)?.description;
}

function explanationText(e: Record<string, unknown>): string {
  const lines = [`${String(e.decision)} (${String(e.reason)}): ${String(e.summary)}`];
  for (const step of e.steps as Array<{ node: string; label: string }>) lines.push(`- ${step.node}: ${step.label}`);
  for (const rule of (e.rules as Array<{ rule_id: string; effect: string; condition?: string }> | undefined) ?? []) {
    lines.push(`- rule ${rule.rule_id} (${rule.effect})${rule.condition ? ` matched: ${rule.condition}` : ''}`);
  }
  lines.push(`Next: ${String(e.next_step)}`);
  return lines.join('\n');
}
