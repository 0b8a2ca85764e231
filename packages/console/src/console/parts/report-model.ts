/**
 * A compliance report (`ns.compliance_report.v1`, GET /v1/reports/{id}) and the list's rows read into what the
 * Reports page shows: the period, decisions by outcome, denials by reason, approvals, revocations and control coverage
 * per framework. Attacker assumption: untrusted JSON (the SDKs verify reports offline; the page draws them); a
 * member of an unexpected shape is left out, never guessed, and every count shown is a non-negative safe integer.
 */
import type { DenialCount } from '../charts/denial-bars.tsx';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export interface Figure {
  key: string;
  label: string;
  count: number;
}

export interface FrameworkCoverage {
  framework: string;
  figures: Figure[];
}

export interface ReportView {
  report_id: string;
  period_start: string | undefined;
  period_end: string | undefined;
  generated_at: string | undefined;
  decisionsTotal: number | undefined;
  outcomes: Figure[];
  denials: DenialCount[];
  approvals: Figure[];
  revocations: Figure[];
  coverage: FrameworkCoverage[];
}

/** Words for the members a report counts; any other member is shown with its name's underscores as spaces. */
const WORDS: Record<string, string> = {
  allow_with_constraints: 'Allowed',
  require_approval: 'Approval required',
  deny: 'Denied',
  total: 'In all',
  requested: 'Asked',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
  pending: 'Still pending',
  grants_revoked: 'Grants revoked',
  revocations: 'Revocations',
  grants: 'Grants revoked',
  mandates_revoked: 'Mandates revoked',
  controls: 'Controls',
  satisfied: 'Satisfied',
  partially_satisfied: 'Partly satisfied',
  not_satisfied: 'Not satisfied',
  not_evidenced: 'Not evidenced',
  gap: 'Gaps',
  gaps: 'Gaps',
  not_applicable: 'Not applicable',
};

export function wordsFor(key: string): string {
  const known = WORDS[key];
  if (known) return known;
  const text = key.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Every count member of an object, or of a `{ name|key|status|decision|outcome, count }` list, in the given order. */
export function figures(value: unknown, skip: readonly string[] = []): Figure[] {
  const out: Figure[] = [];
  if (Array.isArray(value)) {
    for (const row of value) {
      if (!isRecord(row)) continue;
      const key = str(row.decision) ?? str(row.outcome) ?? str(row.status) ?? str(row.name) ?? str(row.key);
      if (key !== undefined && isCount(row.count) && !skip.includes(key))
        out.push({ key, label: wordsFor(key), count: row.count });
    }
    return out;
  }
  if (!isRecord(value)) return out;
  for (const [key, count] of Object.entries(value)) {
    if (isCount(count) && !skip.includes(key)) out.push({ key, label: wordsFor(key), count });
  }
  return out;
}

const OUTCOME_ORDER = ['allow_with_constraints', 'require_approval', 'deny'];

function readOutcomes(decisions: unknown): { total: number | undefined; outcomes: Figure[] } {
  if (!isRecord(decisions)) return { total: undefined, outcomes: figures(decisions) };
  const nested = decisions.by_outcome ?? decisions.by_decision ?? decisions.outcomes;
  const outcomes = nested !== undefined ? figures(nested) : figures(decisions, ['total']);
  outcomes.sort((a, b) => OUTCOME_ORDER.indexOf(a.key) - OUTCOME_ORDER.indexOf(b.key));
  const total = isCount(decisions.total) ? decisions.total : undefined;
  return { total, outcomes };
}

function readDenials(report: Json): DenialCount[] {
  const denials =
    report.denials ?? (isRecord(report.decisions) ? (report.decisions as Json).denials_by_reason : undefined);
  const byReason =
    isRecord(denials) && 'by_reason' in denials ? denials.by_reason : (report.denials_by_reason ?? denials);
  if (Array.isArray(byReason)) {
    return byReason.flatMap((row) =>
      isRecord(row) && str(row.reason) && isCount(row.count)
        ? [{ reason: row.reason as string, count: row.count }]
        : [],
    );
  }
  if (!isRecord(byReason)) return [];
  return Object.entries(byReason).flatMap(([reason, count]) => (isCount(count) ? [{ reason, count }] : []));
}

function readCoverage(value: unknown): FrameworkCoverage[] {
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((row) => [isRecord(row) ? (str(row.framework) ?? str(row.framework_id)) : undefined, row])
    : isRecord(value)
      ? Object.entries(value)
      : [];
  return entries.flatMap(([framework, row]) => {
    if (framework === undefined || !isRecord(row)) return [];
    const nested = row.by_status ?? row.statuses ?? row.counts;
    const list = nested !== undefined ? figures(nested) : figures(row);
    const total = isCount(row.controls) ? row.controls : isCount(row.total) ? row.total : undefined;
    const withTotal =
      total !== undefined && !list.some((f) => f.key === 'controls' || f.key === 'total')
        ? [{ key: 'controls', label: 'Controls', count: total }, ...list]
        : list;
    return [{ framework, figures: withTotal }];
  });
}

export function readReport(answer: unknown): ReportView {
  const r = isRecord(answer) ? answer : {};
  const period = isRecord(r.period) ? (r.period as Json) : r;
  const { total, outcomes } = readOutcomes(r.decisions);
  return {
    report_id: str(r.report_id) ?? str(r.id) ?? '—',
    period_start: str(period.from) ?? str(period.start) ?? str(period.since) ?? str(r.period_start),
    period_end: str(period.to) ?? str(period.end) ?? str(period.until) ?? str(r.period_end),
    generated_at: str(r.generated_at) ?? str(r.created_at) ?? str(r.issued_at),
    decisionsTotal: total ?? (outcomes.length > 0 ? outcomes.reduce((n, f) => n + f.count, 0) : undefined),
    outcomes,
    denials: readDenials(r),
    approvals: figures(r.approvals),
    revocations: isCount(r.revocations)
      ? [{ key: 'revocations', label: 'Revocations', count: r.revocations }]
      : figures(r.revocations),
    coverage: readCoverage(r.control_coverage ?? r.coverage ?? r.frameworks),
  };
}

/** One row of GET /v1/reports. */
export interface ReportRow {
  report_id: string;
  period_start: string | undefined;
  period_end: string | undefined;
  generated_at: string | undefined;
  schedule_id: string | undefined;
}

export function readReportRow(row: unknown): ReportRow | undefined {
  if (!isRecord(row)) return undefined;
  const view = readReport(row);
  if (view.report_id === '—') return undefined;
  return {
    report_id: view.report_id,
    period_start: view.period_start,
    period_end: view.period_end,
    generated_at: view.generated_at,
    schedule_id: str(row.schedule_id),
  };
}
