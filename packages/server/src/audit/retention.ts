/**
 * Retention classes of the audit tables (SPEC "Limits": 10, 7 or 50 years depending on the table; docs/audit.md
 * gives the reasons). The service never deletes a row of them: the write-once tables refuse DELETE in the database
 * itself, and no code path deletes from the others. The class is the minimum an operator must keep; expiry after
 * it is an operator's decision, taken outside the service.
 */
export type RetentionYears = 7 | 10 | 50;

export const AUDIT_RETENTION: Readonly<Record<string, RetentionYears>> = {
  audit_entries: 50,
  audit_nodes: 50,
  audit_checkpoints: 50,
  audit_state: 50,
  signing_keys: 50,
  evidence_packs: 10,
  decisions: 10,
  approvals: 10,
  events: 7,
};
