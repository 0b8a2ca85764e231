/**
 * Decisions over time as stacked columns (allow, approval, deny) in a plain SVG, one column per hour or day of the
 * period, empty ones included so gaps show as gaps. The numbers are also in a table under "Show the numbers".
 */
import { decisionLabel } from '../../shared/decision-badge.tsx';

export interface TimeBucket {
  start: string;
  allow_with_constraints: number;
  require_approval: number;
  deny: number;
}

const SERIES = [
  ['allow_with_constraints', '#2f8a57'],
  ['require_approval', '#c98a1c'],
  ['deny', '#b83232'],
] as const;

/** The buckets of [from, to) at the given step, each filled from `data` (zero when absent). */
export function fillBuckets(data: readonly TimeBucket[], from: Date, to: Date, stepMs: number): TimeBucket[] {
  const byStart = new Map(data.map((b) => [Date.parse(b.start), b]));
  const first = Math.floor(from.getTime() / stepMs) * stepMs;
  const out: TimeBucket[] = [];
  for (let t = first; t < to.getTime(); t += stepMs) {
    const found = byStart.get(t);
    out.push({
      start: new Date(t).toISOString(),
      allow_with_constraints: found?.allow_with_constraints ?? 0,
      require_approval: found?.require_approval ?? 0,
      deny: found?.deny ?? 0,
    });
  }
  return out;
}

export function DecisionsOverTime({ buckets, unit }: { buckets: readonly TimeBucket[]; unit: 'hour' | 'day' }) {
  const total = (b: TimeBucket) => b.allow_with_constraints + b.require_approval + b.deny;
  const max = Math.max(1, ...buckets.map(total));
  const width = 100 / Math.max(1, buckets.length);
  const label = (iso: string) => (unit === 'hour' ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10));
  const sum = buckets.reduce((n, b) => n + total(b), 0);
  return (
    <figure class="time-chart">
      <figcaption class="visually-hidden">
        {sum} decisions per {unit}, from {buckets[0] ? label(buckets[0].start) : '—'} UTC
      </figcaption>
      <div class="time-chart-body">
        <span class="time-chart-max" aria-hidden="true">
          {max}
        </span>
        <svg
          class="time-chart-svg"
          viewBox="0 0 100 50"
          preserveAspectRatio="none"
          role="img"
          aria-label={`Decisions per ${unit}`}
        >
          {buckets.map((b, i) => {
            let y = 50;
            return SERIES.map(([key, fill]) => {
              const h = (b[key] / max) * 48;
              y -= h;
              return h > 0 ? (
                <rect
                  key={`${b.start}-${key}`}
                  x={i * width + width * 0.1}
                  y={y}
                  width={width * 0.8}
                  height={h}
                  fill={fill}
                />
              ) : null;
            });
          })}
          <line x1="0" y1="50" x2="100" y2="50" stroke="#8a94a3" stroke-width="0.3" />
        </svg>
      </div>
      <div class="time-chart-axis" aria-hidden="true">
        <span>{buckets[0] ? label(buckets[0].start) : ''}</span>
        <span>{buckets.length > 0 ? label(buckets[buckets.length - 1]!.start) : ''} UTC</span>
      </div>
      <ul class="legend" aria-label="Legend">
        {SERIES.map(([key, fill]) => (
          <li key={key}>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" fill={fill} />
            </svg>
            {decisionLabel(key)}
          </li>
        ))}
      </ul>
      <details>
        <summary>Show the numbers</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{unit === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'}</th>
                <th scope="col">Allowed</th>
                <th scope="col">Approval</th>
                <th scope="col">Denied</th>
              </tr>
            </thead>
            <tbody>
              {buckets
                .filter((b) => total(b) > 0)
                .map((b) => (
                  <tr key={b.start}>
                    <td>{label(b.start)}</td>
                    <td>{b.allow_with_constraints}</td>
                    <td>{b.require_approval}</td>
                    <td>{b.deny}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
