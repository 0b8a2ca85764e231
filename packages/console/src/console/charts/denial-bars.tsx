/**
 * A report's denials per reason as horizontal bars: the reason in plain words with its code under it, the count
 * beside the bar (the bar is a picture of the number, never the only carrier of it), largest first.
 */
import { reasonText } from '../../shared/reason-text.ts';

export interface DenialCount {
  reason: string;
  count: number;
}

export function DenialBars({ rows, label }: { rows: readonly DenialCount[]; label: string }) {
  if (rows.length === 0) return <p class="muted">No purchase was denied in this period.</p>;
  const sorted = [...rows].sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
  const max = Math.max(1, ...sorted.map((r) => r.count));
  return (
    <ul class="reason-bars" aria-label={label}>
      {sorted.map((row) => (
        <li key={row.reason} data-reason={row.reason}>
          <span class="reason-name">
            {reasonText(row.reason)} <code class="muted">{row.reason}</code>
          </span>
          <svg class="reason-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect x="0" y="0" width={Math.max(1, (row.count / max) * 100)} height="10" fill="#b83232" />
          </svg>
          <span class="reason-count">{row.count}</span>
        </li>
      ))}
    </ul>
  );
}
