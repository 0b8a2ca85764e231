/**
 * One rule of a pack: its title, effect and reason, its condition in plain words (core's describeRule) beside the
 * JSON that actually evaluates, and what it adds (obligations, stop conditions). Shared by the console's pack pages
 * and the simulator's "rule that decided". The JSON is shown as text (never as markup): a pack is operator input.
 */
import { describeRule, type DeclaredReason, type Rule } from '@aar/core';

const EFFECT_TEXT: Record<string, string> = {
  deny: 'Deny',
  require_approval: 'Approval required',
  obligate: 'Adds obligations',
  permit: 'Permit',
};

const EFFECT_TONE: Record<string, string> = {
  deny: 'deny',
  require_approval: 'approval',
  obligate: 'neutral',
  permit: 'allow',
};

export function EffectBadge({ effect }: { effect: string }) {
  return (
    <span class={`badge badge-${EFFECT_TONE[effect] ?? 'neutral'}`} data-effect={effect}>
      {EFFECT_TEXT[effect] ?? effect}
    </span>
  );
}

/** The declared meaning of a rule reason `<pack>.<code>` among the pack's `reasons`. */
export function declaredReason(reasons: readonly DeclaredReason[] | undefined, reason: string | undefined) {
  if (!reason) return undefined;
  const code = reason.slice(reason.indexOf('.') + 1);
  return reasons?.find((r) => r.code === code)?.description;
}

export function RuleCard({
  rule,
  reasons,
  headingLevel = 3,
  highlight,
}: {
  rule: Rule;
  reasons?: readonly DeclaredReason[];
  headingLevel?: 3 | 4;
  /** marks the rule that decided */
  highlight?: string;
}) {
  const Heading = headingLevel === 3 ? 'h3' : 'h4';
  const meaning = declaredReason(reasons, rule.reason);
  const id = `rule-${rule.rule_id}`;
  return (
    <article
      class={`rule-card${highlight ? ' rule-card-decided' : ''}`}
      aria-labelledby={id}
      data-rule-id={rule.rule_id}
    >
      <div class="rule-head">
        <Heading id={id}>{rule.title}</Heading>
        <EffectBadge effect={rule.effect} />
        {highlight && <span class="rule-flag">{highlight}</span>}
      </div>
      {rule.description && <p class="muted">{rule.description}</p>}
      <div class="rule-body">
        <div>
          <p class="rule-label">In plain words</p>
          <p class="rule-words" data-testid="rule-words">
            When {describeRule(rule.when)}.
          </p>
          <dl class="facts">
            <dt>Rule</dt>
            <dd>
              <code>{rule.rule_id}</code>
            </dd>
            {rule.reason && (
              <>
                <dt>Reason</dt>
                <dd>
                  <code data-testid="rule-reason">{rule.reason}</code>
                  {meaning && <span class="muted"> {meaning}</span>}
                </dd>
              </>
            )}
            {rule.obligations && rule.obligations.length > 0 && (
              <>
                <dt>Obligations</dt>
                <dd>{rule.obligations.map((o) => o.type).join(', ')}</dd>
              </>
            )}
            {rule.stop_conditions && rule.stop_conditions.length > 0 && (
              <>
                <dt>Stop conditions</dt>
                <dd>{rule.stop_conditions.join(', ')}</dd>
              </>
            )}
            {rule.taxonomy && rule.taxonomy.length > 0 && (
              <>
                <dt>Taxonomy</dt>
                <dd>{rule.taxonomy.join(', ')}</dd>
              </>
            )}
          </dl>
        </div>
        <div>
          <p class="rule-label">As JSON (what evaluates)</p>
          <pre class="rule-json" data-testid="rule-json">
            {JSON.stringify(rule.when, null, 2)}
          </pre>
        </div>
      </div>
    </article>
  );
}
