/**
 * The signed compliance report (`ns.compliance_report.v1`, CONTRACT section 22, docs/reports.md): what a deployment
 * decided over one period, counted, with the control coverage of each framework it was asked about. The server
 * counts rows and projects evidence packs; `assembleReport` (assemble-report.ts) turns those counts into the body;
 * the server signs it (CONTRACT section 4). A stored format: change it additively only.
 * Money is integer minor units per currency (CONTRACT section 2); the service never converts currencies, so amounts
 * are listed per currency and never summed across them.
 */
import type { DocumentSignature } from '../signing/sign-document.ts';
import type { ControlStatus, RulePackReference } from '../compliance/compliance-projection.ts';

export const COMPLIANCE_REPORT_SCHEMA = 'ns.compliance_report.v1';

export const REPORT_DECISIONS = ['allow_with_constraints', 'require_approval', 'deny'] as const;
export type ReportDecision = (typeof REPORT_DECISIONS)[number];
/** a decision's execution outcome as stored when the report is generated (`none` for every decision but `execute`) */
export const REPORT_OUTCOMES = ['none', 'reserved', 'executed', 'failed', 'refunded'] as const;
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number];
/** an approval's status as a reader sees it at `generated_at` (a lapsed pending or approved one is `expired`) */
export const REPORT_APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;
export type ReportApprovalStatus = (typeof REPORT_APPROVAL_STATUSES)[number];

export interface MinorAmount {
  currency: string;
  /** integer minor units */
  amount_minor: number;
  /** decisions summed */
  count: number;
}

export interface ReportPeriod {
  /** inclusive, ISO 8601 UTC */
  start: string;
  /** exclusive, ISO 8601 UTC */
  end: string;
  /** the schedule's `every` (`hour`, `day`, `week`, `month`, or an ISO 8601 duration); null for an on-demand report */
  every: string | null;
}

export interface DecisionCounts {
  /** authorize decisions whose decision instant is in the period */
  total: number;
  by_decision: Record<ReportDecision, number>;
  by_outcome: Record<ReportOutcome, number>;
  /** the amounts of the allowed decisions, per currency */
  allowed_amounts: MinorAmount[];
  /** the amounts of the allowed decisions recorded as executed (outcome `executed`), per currency */
  executed_amounts: MinorAmount[];
}

export interface DenialCounts {
  total: number;
  /** most frequent first, then by reason; a rule pack's reasons (`<pack>.<code>`) appear as they were given */
  by_reason: Array<{ reason: string; count: number }>;
}

export interface ApprovalCounts {
  /** approvals requested (created) in the period */
  total: number;
  by_status: Record<ReportApprovalStatus, number>;
}

export interface RevocationCounts {
  /** grants revoked in the period, cascades included */
  grants_revoked: number;
  /** revoke calls that revoked them (distinct cascade roots) */
  revoke_operations: number;
}

export interface ControlCoverage {
  control_id: string;
  title: string;
  status: ControlStatus;
  /** why the status is not `satisfied` */
  reason?: string;
  packs: { applicable: number; satisfying: number };
}

export interface FrameworkCoverage {
  framework: string;
  rule_pack: RulePackReference;
  evidence_packs: {
    /** decisions made in the period (each has one evidence pack) */
    in_period: number;
    /** packs projected: all of them, or an evenly spaced sample of at most `MAX_REPORT_PACKS` */
    projected: number;
  };
  summary: Record<ControlStatus, number>;
  controls: ControlCoverage[];
}

export interface UnsignedComplianceReport {
  schema_version: typeof COMPLIANCE_REPORT_SCHEMA;
  /** `ns:compliance_report:<uuid>` */
  report_id: string;
  issuer: string;
  generated_at: string;
  /** `ns:report_schedule:<uuid>`, or null for an on-demand report */
  schedule_id: string | null;
  period: ReportPeriod;
  decisions: DecisionCounts;
  denials: DenialCounts;
  approvals: ApprovalCounts;
  revocations: RevocationCounts;
  /** one entry per framework asked for, in the order asked */
  coverage: FrameworkCoverage[];
}

export type ComplianceReport = UnsignedComplianceReport & { signature: DocumentSignature };
