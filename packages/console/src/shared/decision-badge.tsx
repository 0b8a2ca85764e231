/** A decision as words and colour together (colour alone would leave out people who do not see it). */
const LABELS: Record<string, string> = {
  allow_with_constraints: 'Allow with constraints',
  require_approval: 'Approval required',
  deny: 'Deny',
};

export function decisionLabel(decision: string): string {
  return LABELS[decision] ?? decision;
}

export function DecisionBadge({ decision }: { decision: string }) {
  const tone = decision === 'deny' ? 'deny' : decision === 'require_approval' ? 'approval' : 'allow';
  return (
    <span class={`badge badge-${tone}`} data-decision={decision}>
      {decisionLabel(decision)}
    </span>
  );
}
