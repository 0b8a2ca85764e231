/**
 * A chained event whose row is gone (deleted behind the service's back): `record_missing`, at the event's own audit
 * entry. An envelope that does not parse, or whose entry is beyond this run's tip, is left to check-events.ts, which
 * names it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { entriesById } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';

export async function failMissingRow(
  db: Kysely<Database>,
  findings: RecordFindings,
  envelope: string,
  record: { table: string; id: string },
  detail: string,
): Promise<void> {
  let auditRef: string;
  try {
    auditRef = String((JSON.parse(envelope) as { audit_ref?: unknown }).audit_ref ?? '');
  } catch {
    return;
  }
  const entry = (await entriesById(db, [auditRef], findings.size)).get(auditRef);
  if (!entry) return;
  findings.fail({ reason: 'record_missing', index: entry.index, record, detail });
}
