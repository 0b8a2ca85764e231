/**
 * Assembles the body of an `ns.compliance_report.v1` from counted rows (the server's GROUP BY queries over the
 * period), pure and deterministic: the same rows give the same bytes on every instance. Every count key is present
 * (zeros included) and lists are sorted, so two reports compare member by member.
 * Money: the sums arrive as integers of minor units (number, bigint, or the decimal string PostgreSQL gives for a
 * bigint sum) and are summed with BigInt; a sum beyond Number.MAX_SAFE_INTEGER is refused, never rounded.
 * Attacker assumption: none beyond the store's; rows with an unknown decision, outcome or status are an internal
 * error (the database's check constraints make them impossible), not silently dropped.
 */
import { AarError } from '../errors/aar-error.ts';
import {
  COMPLIANCE_REPORT_SCHEMA,
  REPORT_APPROVAL_STATUSES,
  REPORT_DECISIONS,
  REPORT_OUTCOMES,
  type ApprovalCounts,
  type DecisionCounts,
  type DenialCounts,
  type FrameworkCoverage,
  type MinorAmount,
  type ReportApprovalStatus,
  type ReportDecision,
  type ReportOutcome,
  type ReportPeriod,
  type RevocationCounts,
  type UnsignedComplianceReport,
} from './compliance-report.ts';

type Integer = number | bigint | string;

/** decisions grouped by (decision, outcome, currency), with the count and the sum of their amounts */
export interface DecisionRow {
  decision: string;
  outcome: string;
  /** null for decisions without an amount (search, compare, ...) */
  currency: string | null;
  count: Integer;
  /** sum of `amount_minor`; null when no decision of the group has an amount */
  amount_minor: Integer | null;
}

export interface DenialRow {
  reason: string;
  count: Integer;
}

/** approvals created in the period grouped by stored status and whether they had lapsed at `generated_at` */
export interface ApprovalRow {
  status: string;
  lapsed: boolean;
  count: Integer;
}

export interface ReportCounts {
  decisions: DecisionRow[];
  denials: DenialRow[];
  approvals: ApprovalRow[];
  revocations: { grants: Integer; operations: Integer };
}

export interface ReportMeta {
  report_id: string;
  issuer: string;
  generated_at: string;
  schedule_id: string | null;
  period: ReportPeriod;
}

function big(value: Integer, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?[0-9]{1,30}$/.test(value)) return BigInt(value);
  throw new AarError('internal', `report: ${what} is not an integer`);
}

function safe(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AarError('internal', `report: ${what} is beyond the integers a JSON number holds exactly`);
  }
  return Number(value);
}

function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

function member<K extends string>(keys: readonly K[], value: string, what: string): K {
  if (!(keys as readonly string[]).includes(value)) throw new AarError('internal', `report: unknown ${what} ${value}`);
  return value as K;
}

const byCurrency = (a: MinorAmount, b: MinorAmount) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0);

function amounts(rows: readonly DecisionRow[]): MinorAmount[] {
  const sums = new Map<string, { minor: bigint; count: bigint }>();
  for (const row of rows) {
    if (row.currency === null || row.amount_minor === null) continue;
    const s = sums.get(row.currency) ?? { minor: 0n, count: 0n };
    s.minor += big(row.amount_minor, 'an amount');
    s.count += big(row.count, 'a count');
    sums.set(row.currency, s);
  }
  return [...sums.entries()]
    .map(([currency, s]) => ({
      currency,
      amount_minor: safe(s.minor, `the ${currency} sum`),
      count: safe(s.count, 'a count'),
    }))
    .sort(byCurrency);
}

export function countDecisions(rows: readonly DecisionRow[]): DecisionCounts {
  const by_decision = zeros<ReportDecision>(REPORT_DECISIONS);
  const by_outcome = zeros<ReportOutcome>(REPORT_OUTCOMES);
  let total = 0n;
  for (const row of rows) {
    const n = big(row.count, 'a count');
    total += n;
    const d = member(REPORT_DECISIONS, row.decision, 'decision');
    const o = member(REPORT_OUTCOMES, row.outcome, 'outcome');
    by_decision[d] = safe(BigInt(by_decision[d]) + n, 'a count');
    by_outcome[o] = safe(BigInt(by_outcome[o]) + n, 'a count');
  }
  const allowed = rows.filter((r) => r.decision === 'allow_with_constraints');
  return {
    total: safe(total, 'the decision count'),
    by_decision,
    by_outcome,
    allowed_amounts: amounts(allowed),
    executed_amounts: amounts(allowed.filter((r) => r.outcome === 'executed')),
  };
}

export function countDenials(rows: readonly DenialRow[]): DenialCounts {
  const merged = new Map<string, bigint>();
  for (const row of rows) merged.set(row.reason, (merged.get(row.reason) ?? 0n) + big(row.count, 'a count'));
  const by_reason = [...merged.entries()]
    .map(([reason, n]) => ({ reason, count: safe(n, 'a count') }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  return { total: by_reason.reduce((n, r) => n + r.count, 0), by_reason };
}

/** A pending or approved approval that has lapsed reads `expired`, as `GET /v1/approvals/{id}` shows it. */
export function countApprovals(rows: readonly ApprovalRow[]): ApprovalCounts {
  const by_status = zeros<ReportApprovalStatus>(REPORT_APPROVAL_STATUSES);
  let total = 0;
  for (const row of rows) {
    const stored = member(REPORT_APPROVAL_STATUSES, row.status, 'approval status');
    const status: ReportApprovalStatus =
      row.lapsed && (stored === 'pending' || stored === 'approved') ? 'expired' : stored;
    const n = safe(big(row.count, 'a count'), 'a count');
    by_status[status] += n;
    total += n;
  }
  return { total, by_status };
}

export function countRevocations(row: ReportCounts['revocations']): RevocationCounts {
  return {
    grants_revoked: safe(big(row.grants, 'a count'), 'a count'),
    revoke_operations: safe(big(row.operations, 'a count'), 'a count'),
  };
}

/** The unsigned report: `meta`, the counts, and the coverage of each framework (in the order asked). */
export function assembleReport(
  meta: ReportMeta,
  counts: ReportCounts,
  coverage: readonly FrameworkCoverage[],
): UnsignedComplianceReport {
  if (!(meta.period.start < meta.period.end))
    throw new AarError('internal', 'report: the period ends before it starts');
  return {
    schema_version: COMPLIANCE_REPORT_SCHEMA,
    report_id: meta.report_id,
    issuer: meta.issuer,
    generated_at: meta.generated_at,
    schedule_id: meta.schedule_id,
    period: meta.period,
    decisions: countDecisions(counts.decisions),
    denials: countDenials(counts.denials),
    approvals: countApprovals(counts.approvals),
    revocations: countRevocations(counts.revocations),
    coverage: [...coverage],
  };
}
