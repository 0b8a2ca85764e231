/**
 * Every risk state against the chain: a `risk_states` row is what the subject's latest `ns.risk.state_changed` event
 * set (`new_state` -> `risk_state`, `expires_at`), and a subject with such an event has its row (a signal always
 * leaves one: services/risk/record-risk-signal.ts). The events' envelopes are checked against their audit entries by
 * check-events.ts, so a row that agrees with its latest event agrees with the chain. authorize holds the same rule
 * (services/authorize/chained-risk.ts); this names the forged row: `record_mismatch`, table `risk_states`, column
 * `risk_state` or `expires_at` (or `record_missing` for a deleted row), at the index of the event's entry.
 * `reason` (free text) and `updated_at` are not in the event (docs/audit.md).
 * Signals committed during the run (their entry at or past `size`) are left to the next run. No `seq` mark: every run
 * checks every row, a page at a time (O(page) memory).
 */
import type { Kysely } from 'kysely';
import { RISK_EVENT } from '../../services/authorize/chained-risk.ts';
import type { Database } from '../../store/index.ts';
import { entriesById } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';

interface LatestSignal {
  new_state: unknown;
  expires_at: unknown;
  audit_ref: string;
}

export async function checkRiskStates(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('risk_states')
      .select(['entity_id', 'risk_state', 'expires_at'])
      .where('entity_id', '>', after)
      .orderBy('entity_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.entity_id;
    const latest = await latestSignals(
      db,
      rows.map((r) => r.entity_id),
    );
    const entries = await entriesById(
      db,
      [...latest.values()].map((l) => l.audit_ref),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'risk_states', id: row.entity_id };
      const signal = latest.get(row.entity_id);
      if (!signal) {
        findings.fail({ reason: 'record_unanchored', record, detail: 'risk_state' });
        continue;
      }
      const entry = entries.get(signal.audit_ref);
      if (!entry) continue; // a signal of this run (its entry past `size`), or unanchored: check-events names it
      const detail =
        signal.new_state !== row.risk_state
          ? 'risk_state'
          : (signal.expires_at ?? null) !== row.expires_at
            ? 'expires_at'
            : undefined;
      if (detail) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail });
    }
  }
  await checkEverySignalHasItsRow(db, findings, pageSize);
}

/** Subjects with a risk event but no row: the row was deleted (the deletion makes a blocked subject normal). */
async function checkEverySignalHasItsRow(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
): Promise<void> {
  let after = '';
  for (;;) {
    const subjects = (
      await db
        .selectFrom('events')
        .select('subject_ref')
        .distinct()
        .where('event_type', '=', RISK_EVENT)
        .where('subject_ref', '>', after)
        .orderBy('subject_ref')
        .limit(pageSize)
        .execute()
    ).map((r) => r.subject_ref);
    if (subjects.length === 0) return;
    after = subjects[subjects.length - 1]!;
    const present = new Set(
      (await db.selectFrom('risk_states').select('entity_id').where('entity_id', 'in', subjects).execute()).map(
        (r) => r.entity_id,
      ),
    );
    const missing = subjects.filter((s) => !present.has(s));
    if (missing.length === 0) continue;
    const latest = await latestSignals(db, missing);
    const entries = await entriesById(
      db,
      [...latest.values()].map((l) => l.audit_ref),
      findings.size,
    );
    for (const subject of missing) {
      const entry = entries.get(latest.get(subject)?.audit_ref ?? '');
      if (!entry) continue; // its only signal is of this run: the row is committed with it
      findings.fail({
        reason: 'record_missing',
        index: entry.index,
        record: { table: 'risk_states', id: subject },
        detail: 'risk_state',
      });
    }
  }
}

/** The latest risk event of each subject (by `seq`, the commit order), from its envelope. */
async function latestSignals(db: Kysely<Database>, subjects: readonly string[]): Promise<Map<string, LatestSignal>> {
  const out = new Map<string, LatestSignal>();
  if (subjects.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .select(['subject_ref', 'envelope'])
    .where('event_type', '=', RISK_EVENT)
    .where('subject_ref', 'in', [...subjects])
    .orderBy('seq')
    .execute();
  for (const row of rows) {
    try {
      const envelope = JSON.parse(row.envelope) as { audit_ref?: unknown; data?: Record<string, unknown> };
      if (typeof envelope.audit_ref !== 'string' || typeof envelope.data !== 'object' || envelope.data === null) {
        continue;
      }
      out.set(row.subject_ref, {
        new_state: envelope.data.new_state,
        expires_at: envelope.data.expires_at,
        audit_ref: envelope.audit_ref,
      });
    } catch {
      // unreadable: check-events.ts names the event
    }
  }
  return out;
}
