/**
 * A compliance report (`ns.compliance_report.v1`, GET /v1/reports/{id}) and the list's rows read into what the
 * Reports page shows: the period, decisions by outcome, denials by reason, approvals, revocations and control coverage
 * per framework. Attacker assumption: untrusted JSON (the SDKs verify reports offline; the page draws them); a
 * member of an unexpected shape is left out, never guessed, and every count shown is a non-negative safe integer.
 */
import type { DenialCount } from '../charts/denial-bars.tsx';
import { formatMoneyValue, isMoneyValue } from './money-value.ts';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export interface Figure {
  key: string;
  label: string;
  count: number;
}

export interface ControlRow {
  control_id: string;
  title: string;
  status: string;
  reason: string | undefined;
  applicable: number | undefined;
  satisfying: number | undefined;
}

export interface FrameworkCoverage {
  framework: string;
  /** controls per status (`summary`) */
  figures: Figure[];
  rule_pack: string | undefined;
  packsInPeriod: number | undefined;
  packsProjected: number | undefined;
  controls: ControlRow[];
}

/** An amount per currency (integer minor units, never summed across currencies) and how many decisions it sums. */
export interface AmountRow {
  amount: string;
  currency: string;
  count: number | undefined;
}

export interface ReportView {
  report_id: string;
  period_start: string | undefined;
  period_end: string | undefined;
  generated_at: string | undefined;
  every: string | undefined;
  schedule_id: string | undefined;
  decisionsTotal: number | undefined;
  /** by decision: allowed, approval required, denied */
  outcomes: Figure[];
  /** by execution outcome as stored at generation */
  executions: Figure[];
  allowedAmounts: AmountRow[];
  executedAmounts: AmountRow[];
  denialsTotal: number | undefined;
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
  consumed: 'Approved and used',
  grants_revoked: 'Grants revoked',
  revoke_operations: 'Revoke calls',
  none: 'No outcome (not a purchase)',
  reserved: 'Reserved, not yet executed',
  executed: 'Executed',
  failed: 'Failed',
  refunded: 'Refunded',
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
const EXECUTION_ORDER = ['none', 'reserved', 'executed', 'failed', 'refunded'];
const APPROVAL_ORDER = ['pending', 'approved', 'consumed', 'rejected', 'expired'];

/** Figures in a fixed order of their keys (the signed JSON's members are in canonical, alphabetical order). */
function ordered(list: Figure[], order: readonly string[]): Figure[] {
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return [...list].sort((a, b) => rank(a.key) - rank(b.key));
}

function readAmounts(value: unknown): AmountRow[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((row) => {
    if (!isRecord(row) || !isMoneyValue(row)) return [];
    const count = (row as Json).count;
    return [{ amount: formatMoneyValue(row), currency: row.currency, count: isCount(count) ? count : undefined }];
  });
}

function readDenials(denials: unknown): DenialCount[] {
  const byReason = isRecord(denials) ? denials.by_reason : undefined;
  if (!Array.isArray(byReason)) return [];
  return byReason.flatMap((row) =>
    isRecord(row) && str(row.reason) && isCount(row.count) ? [{ reason: row.reason as string, count: row.count }] : [],
  );
}

function readControls(value: unknown): ControlRow[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((c) => {
    if (!isRecord(c) || !str(c.control_id) || !str(c.status)) return [];
    const packs = isRecord(c.packs) ? c.packs : {};
    return [
      {
        control_id: c.control_id as string,
        title: str(c.title) ?? '',
        status: c.status as string,
        reason: str(c.reason),
        applicable: isCount(packs.applicable) ? packs.applicable : undefined,
        satisfying: isCount(packs.satisfying) ? packs.satisfying : undefined,
      },
    ];
  });
}

const STATUS_ORDER = ['satisfied', 'partially_satisfied', 'not_satisfied', 'gap', 'not_applicable'];

function readCoverage(value: unknown): FrameworkCoverage[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((row) => {
    if (!isRecord(row) || !str(row.framework)) return [];
    const packs = isRecord(row.evidence_packs) ? row.evidence_packs : {};
    const figuresOf = ordered(figures(row.summary), STATUS_ORDER);
    return [
      {
        framework: row.framework as string,
        figures: figuresOf,
        rule_pack: isRecord(row.rule_pack) ? str(row.rule_pack.rule_pack_id) : undefined,
        packsInPeriod: isCount(packs.in_period) ? packs.in_period : undefined,
        packsProjected: isCount(packs.projected) ? packs.projected : undefined,
        controls: readControls(row.controls),
      },
    ];
  });
}

/** `ns.compliance_report.v1` as docs/reports.md documents it. */
export function readReport(answer: unknown): ReportView {
  const r = isRecord(answer) ? answer : {};
  const period = isRecord(r.period) ? r.period : {};
  const decisions = isRecord(r.decisions) ? r.decisions : {};
  const outcomes = ordered(figures(decisions.by_decision), OUTCOME_ORDER);
  const approvals = isRecord(r.approvals) ? r.approvals : {};
  const denials = isRecord(r.denials) ? r.denials : {};
  return {
    report_id: str(r.report_id) ?? '—',
    period_start: str(period.start),
    period_end: str(period.end),
    every: str(period.every),
    schedule_id: str(r.schedule_id),
    generated_at: str(r.generated_at),
    decisionsTotal: isCount(decisions.total) ? decisions.total : undefined,
    outcomes,
    executions: ordered(figures(decisions.by_outcome), EXECUTION_ORDER),
    allowedAmounts: readAmounts(decisions.allowed_amounts),
    executedAmounts: readAmounts(decisions.executed_amounts),
    denialsTotal: isCount(denials.total) ? denials.total : undefined,
    denials: readDenials(r.denials),
    approvals: [
      ...(isCount(approvals.total) ? [{ key: 'total', label: 'Asked in the period', count: approvals.total }] : []),
      ...ordered(figures(approvals.by_status), APPROVAL_ORDER),
    ],
    revocations: figures(r.revocations),
    coverage: readCoverage(r.coverage),
  };
}

/** One row of GET /v1/reports: `{ report_id, schedule_id, period: { start, end }, generated_at, digest, ... }`. */
export interface ReportRow {
  report_id: string;
  period_start: string | undefined;
  period_end: string | undefined;
  generated_at: string | undefined;
  schedule_id: string | undefined;
}

export function readReportRow(row: unknown): ReportRow | undefined {
  if (!isRecord(row) || !str(row.report_id)) return undefined;
  const period = isRecord(row.period) ? row.period : {};
  return {
    report_id: row.report_id as string,
    period_start: str(period.start),
    period_end: str(period.end),
    generated_at: str(row.generated_at),
    schedule_id: str(row.schedule_id),
  };
}
