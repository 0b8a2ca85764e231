/** The tables of reports and schedules (migration 0028), part of `Database` (schema.ts). Conventions as in schema.ts. */
import type { Generated } from 'kysely';

export interface ReportSchedulesTable {
  seq: Generated<number>;
  /** `ns:report_schedule:<uuid>` */
  schedule_id: string;
  /** `hour`, `day`, `week`, `month`, or an ISO 8601 duration of at least an hour */
  every: string;
  /** interval schedules: the instant periods run from; calendar ones: null */
  anchor: string | null;
  /** JSON array of framework names */
  frameworks: string;
  description: string | null;
  /** the next period to report on, [next_start, next_end) */
  next_start: string;
  next_end: string;
  /** the credential that created it (`ns:token:<uuid>`) */
  created_by: string;
  created_at: string;
  deleted_at: string | null;
}

export interface ComplianceReportsTable {
  seq: Generated<number>;
  /** `ns:compliance_report:<uuid>` */
  report_id: string;
  /** null for an on-demand report */
  schedule_id: string | null;
  period_start: string;
  period_end: string;
  /** `sha-256:` + base64url of SHA-256(document) */
  digest: string;
  /** the signed report's RFC 8785 text */
  document: string;
  generated_at: string;
  /** the credential of an on-demand report; null for a scheduled one */
  created_by: string | null;
}

export interface ReportTables {
  report_schedules: ReportSchedulesTable;
  compliance_reports: ComplianceReportsTable;
}
