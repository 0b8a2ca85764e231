/**
 * Counts before and after a change (a backtest: what was decided, what the pack would have decided) as paired
 * horizontal bars in plain SVG, one row per outcome or reason. Both numbers are written beside the bars (the bars
 * are a picture of the numbers, never their only carrier); "before" is hatched grey, "after" coloured by outcome.
 */
import { decisionLabel } from '../../shared/decision-badge.tsx';

export interface BeforeAfterRow {
  key: string;
  before: number;
  after: number;
}

const FILL: Record<string, string> = {
  allow_with_constraints: '#2f8a57',
  require_approval: '#c98a1c',
  deny: '#b83232',
};

export function BeforeAfterBars({
  rows,
  label,
  caption,
  testId,
}: {
  rows: readonly BeforeAfterRow[];
  label: 'outcome' | 'reason';
  caption: string;
  testId: string;
}) {
  if (rows.length === 0) return <p class="muted">Nothing to compare.</p>;
  const max = Math.max(1, ...rows.flatMap((r) => [r.before, r.after]));
  const width = (n: number) => (n === 0 ? 0 : Math.max(1, (n / max) * 100));
  return (
    <figure class="before-after" data-testid={testId}>
      <figcaption>{caption}</figcaption>
      <ul class="before-after-rows">
        {rows.map((row) => {
          const fill = label === 'outcome' ? (FILL[row.key] ?? '#3d6fb4') : '#3d6fb4';
          return (
            <li key={row.key} data-row={row.key}>
              <span class="before-after-name">
                {label === 'outcome' ? decisionLabel(row.key) : <code>{row.key}</code>}
              </span>
              <svg class="before-after-svg" viewBox="0 0 100 22" preserveAspectRatio="none" aria-hidden="true">
                <rect x="0" y="1" width={width(row.before)} height="9" fill="#9aa3ae" />
                <rect x="0" y="12" width={width(row.after)} height="9" fill={fill} />
              </svg>
              <span class="before-after-count">
                <span data-before={row.before}>before {row.before}</span>
                <span data-after={row.after}>after {row.after}</span>
              </span>
            </li>
          );
        })}
      </ul>
      <ul class="legend" aria-label="Legend">
        <li>
          <svg width="12" height="12" aria-hidden="true">
            <rect width="12" height="12" fill="#9aa3ae" />
          </svg>
          As decided
        </li>
        <li>
          <svg width="12" height="12" aria-hidden="true">
            {label === 'outcome' ? (
              Object.values(FILL).map((fill, i) => <rect key={fill} x={i * 4} width="4" height="12" fill={fill} />)
            ) : (
              <rect width="12" height="12" fill="#3d6fb4" />
            )}
          </svg>
          With this pack
        </li>
      </ul>
    </figure>
  );
}
