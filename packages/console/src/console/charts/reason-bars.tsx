/**
 * Decisions per reason as horizontal bars: one row per reason, its count in words beside the bar (the bar is a
 * picture of the number, never the only carrier of it), coloured by the decision it leads to.
 */
import { decisionLabel } from '../../shared/decision-badge.tsx';

export interface ReasonCount {
  reason: string;
  decision: string;
  count: number;
}

const FILL: Record<string, string> = {
  allow_with_constraints: '#2f8a57',
  require_approval: '#c98a1c',
  deny: '#b83232',
};

export function ReasonBars({ rows }: { rows: readonly ReasonCount[] }) {
  if (rows.length === 0) return <p class="muted">No decisions in this period.</p>;
  const max = Math.max(...rows.map((r) => r.count));
  return (
    <ul class="reason-bars" aria-label="Decisions per reason">
      {rows.map((row) => (
        <li key={`${row.reason}-${row.decision}`}>
          <span class="reason-name">
            <code>{row.reason}</code>
          </span>
          <svg class="reason-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect
              x="0"
              y="0"
              width={Math.max(1, (row.count / max) * 100)}
              height="10"
              fill={FILL[row.decision] ?? '#6b7480'}
            />
          </svg>
          <span class="reason-count">
            {row.count} <span class="visually-hidden">({decisionLabel(row.decision)})</span>
          </span>
        </li>
      ))}
    </ul>
  );
}
