/**
 * What a backtest reports (CONTRACT section 19): of the decisions replayed, how many the pack would have changed,
 * the count of each outcome and reason before (as recorded) and after (with the pack), and a few changed decisions
 * as samples. Pure and serialisable: the running job keeps it in the backtest's row between pages (resumable).
 */
export interface OutcomeCount {
  before: number;
  after: number;
}

export interface BacktestSample {
  policy_decision_id: string;
  now: string;
  before: { decision: string; reason: string };
  after: { decision: string; reason: string };
}

export interface BacktestReport {
  decisions: number;
  changed: number;
  by_outcome: Array<{ outcome: string } & OutcomeCount>;
  by_reason: Array<{ reason: string } & OutcomeCount>;
  samples: BacktestSample[];
}

/** at most this many changed decisions are kept as samples (the first ones, in decision order) */
export const MAX_SAMPLES = 20;
const DECISIONS = ['allow_with_constraints', 'require_approval', 'deny'];

export function emptyReport(): BacktestReport {
  return {
    decisions: 0,
    changed: 0,
    by_outcome: DECISIONS.map((outcome) => ({ outcome, before: 0, after: 0 })),
    by_reason: [],
    samples: [],
  };
}

/** Adds one replayed decision to `report` (in place). */
export function countDecision(
  report: BacktestReport,
  id: string,
  now: string,
  before: { decision: string; reason: string },
  after: { decision: string; reason: string },
): void {
  report.decisions += 1;
  bump(report.by_outcome, 'outcome', before.decision, 'before');
  bump(report.by_outcome, 'outcome', after.decision, 'after');
  bump(report.by_reason, 'reason', before.reason, 'before');
  bump(report.by_reason, 'reason', after.reason, 'after');
  if (before.decision !== after.decision || before.reason !== after.reason) {
    report.changed += 1;
    if (report.samples.length < MAX_SAMPLES) report.samples.push({ policy_decision_id: id, now, before, after });
  }
}

function bump<K extends 'outcome' | 'reason'>(
  rows: Array<Record<K, string> & OutcomeCount>,
  key: K,
  value: string,
  side: 'before' | 'after',
): void {
  let row = rows.find((r) => r[key] === value);
  if (!row) {
    row = { [key]: value, before: 0, after: 0 } as unknown as Record<K, string> & OutcomeCount;
    rows.push(row);
  }
  row[side] += 1;
}

/** reasons in a stable order for the finished report: most frequent after, then by name */
export function finishReport(report: BacktestReport): BacktestReport {
  const by_reason = [...report.by_reason].sort(
    (a, b) => b.after - a.after || b.before - a.before || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0),
  );
  return { ...report, by_reason };
}
