/**
 * The database's own guard of the audit-relevant tables (CONTRACT section 8): a row, once written, changes only in
 * its documented state columns, along the transitions the service makes, and is never deleted or replaced.
 * Attacker assumption: someone with SQL access but without the service key, using any client, any pragma and any
 * statement form: UPDATE, DELETE, `INSERT OR REPLACE` / `REPLACE INTO`, `INSERT … ON CONFLICT DO UPDATE`, TRUNCATE.
 * - SQLite's REPLACE deletes the conflicting row WITHOUT firing DELETE triggers (unless `recursive_triggers` is on,
 *   which a client chooses), so every unique key of a guarded table also gets a BEFORE INSERT trigger refusing a row
 *   whose key already exists: that closes REPLACE and upserts whatever the pragmas. (An insert that merely collides
 *   now fails with the guard's message instead of a unique violation: the service never relies on either.)
 * - PostgreSQL has no REPLACE; an upsert's DO UPDATE runs the row's BEFORE UPDATE trigger, which refuses it.
 * - UPDATE compares every column but the state columns (SQLite: a column list read when the guard is made, so a
 *   migration that adds a column to a guarded table must call `guardSqliteTable` again; PostgreSQL: the whole row
 *   as JSON minus the state columns, so new columns are covered at once).
 * Dropping the triggers (or `session_replication_role = replica`) defeats all of this: `GET /v1/audit/verify`
 * then finds the edit by checking each record against the digest its audit entry commits to (audit/verify-records).
 */
import { sql, type Kysely } from 'kysely';

export interface GuardedTable {
  table: string;
  /** every unique key (REPLACE deletes a row conflicting on any of them) */
  uniqueKeys: ReadonlyArray<readonly string[]>;
  /** the state columns the service may change; empty: fully write-once */
  stateColumns: readonly string[];
  /** SQLite: an expression over `old`/`new` the change of state columns must satisfy (the service's transitions) */
  sqliteTransition?: string;
}

/** outcome: reserved -> executed | failed, executed -> refunded (services/outcomes/record-outcome.ts) */
const DECISION_TRANSITION = `(new.outcome is old.outcome
  or (old.outcome = 'reserved' and new.outcome in ('executed', 'failed'))
  or (old.outcome = 'executed' and new.outcome = 'refunded'))`;

/**
 * pending -> approved | rejected, deciding it once (services/approvals/decide-approval.ts); approved -> consumed by
 * one decision (services/authorize/commit-decision.ts). Nothing else, and a decided approval's facts never change.
 */
const APPROVAL_TRANSITION = `((new.status is old.status and new.decided_at is old.decided_at
    and new.sca_reference is old.sca_reference and new.consumed_by is old.consumed_by)
  or (old.status = 'pending' and new.status in ('approved', 'rejected') and old.decided_at is null
    and new.decided_at is not null and new.consumed_by is old.consumed_by)
  or (old.status = 'approved' and new.status = 'consumed' and old.consumed_by is null
    and new.consumed_by is not null and new.decided_at is old.decided_at and new.sca_reference is old.sca_reference))`;

/**
 * Erasure (services/entities/tombstone-entity.ts) is the only change of an event: an `ns.card_token.created`
 * envelope loses its `last4` (set to null) and gains `erased: true`, everything else byte for byte the same.
 */
const EVENT_ERASURE = `(new.envelope is old.envelope
  or (old.event_type = 'ns.card_token.created' and json_valid(new.envelope)
    and json_remove(new.envelope, '$.data.last4', '$.data.erased') = json_remove(old.envelope, '$.data.last4', '$.data.erased')
    and json_type(new.envelope, '$.data.last4') = 'null' and json_type(new.envelope, '$.data.erased') = 'true'))`;

/** Guarded since 0003/0004 against UPDATE and DELETE; 0007 adds the insert guard (REPLACE) on SQLite. */
export const AUDIT_GUARDED: readonly GuardedTable[] = [
  { table: 'audit_entries', uniqueKeys: [['idx'], ['audit_id']], stateColumns: [] },
  { table: 'audit_nodes', uniqueKeys: [['level', 'idx']], stateColumns: [] },
  { table: 'audit_checkpoints', uniqueKeys: [['size']], stateColumns: [] },
  { table: 'evidence_packs', uniqueKeys: [['evidence_pack_id'], ['policy_decision_id']], stateColumns: [] },
];

/** Guarded from 0007 on. */
export const RECORD_GUARDED: readonly GuardedTable[] = [
  {
    table: 'decisions',
    uniqueKeys: [['seq'], ['policy_decision_id'], ['decision_map_id']],
    stateColumns: ['outcome', 'updated_at'],
    sqliteTransition: DECISION_TRANSITION,
  },
  {
    table: 'approvals',
    uniqueKeys: [['seq'], ['approval_id'], ['policy_decision_id']],
    stateColumns: ['status', 'decided_at', 'sca_reference', 'consumed_by', 'updated_at'],
    sqliteTransition: APPROVAL_TRANSITION,
  },
  {
    table: 'events',
    uniqueKeys: [['seq'], ['event_id']],
    stateColumns: ['envelope'],
    sqliteTransition: EVENT_ERASURE,
  },
  { table: 'event_operations', uniqueKeys: [['operation_ref']], stateColumns: [] },
  { table: 'grant_revocations', uniqueKeys: [['grant_id']], stateColumns: [] },
  { table: 'store_meta', uniqueKeys: [['key']], stateColumns: [] },
];

/** Guarded from 0010 on: the signed marks of completed verifications (audit/verify/verified-marks.ts). */
export const AUDIT_VERIFICATIONS_GUARD: GuardedTable = {
  table: 'audit_verifications',
  uniqueKeys: [['size']],
  stateColumns: [],
};

/** The decisions guard, made again by 0010 on SQLite when `record` joins the compared columns. */
export const DECISIONS_GUARD: GuardedTable = RECORD_GUARDED.find((g) => g.table === 'decisions')!;

/** Guarded from 0013 on: the signed conformance reports (services/conformance/conformance-runs.ts). */
export const CONFORMANCE_RUNS_GUARD: GuardedTable = {
  table: 'conformance_runs',
  uniqueKeys: [['seq'], ['report_id']],
  stateColumns: [],
};

/** Guarded from 0012 on: the signed self-audit reports (services/self-audit/self-audit-runs.ts). */
export const SELF_AUDIT_RUNS_GUARD: GuardedTable = {
  table: 'self_audit_runs',
  uniqueKeys: [['seq'], ['run_id']],
  stateColumns: [],
};

/** Guarded from 0012 on: the signed certification self-attestations (services/certification/attestations.ts). */
export const ATTESTATIONS_GUARD: GuardedTable = {
  table: 'certification_attestations',
  uniqueKeys: [['seq'], ['attestation_id']],
  stateColumns: [],
};

/** Guarded from 0011 on: the signed proof bundles (services/bundles/assemble-bundle.ts). */
export const BUNDLES_GUARD: GuardedTable = { table: 'bundles', uniqueKeys: [['seq'], ['bundle_id']], stateColumns: [] };

/** Guarded from 0022 on: the policy sets decision records name by digest (services/decisions/policy-set-texts.ts). */
export const POLICY_SET_TEXTS_GUARD: GuardedTable = {
  table: 'policy_set_texts',
  uniqueKeys: [['digest']],
  stateColumns: [],
};

/** Every table the database keeps write-once (but for state columns), for tests and docs. */
export const GUARDED_TABLES: readonly string[] = [...AUDIT_GUARDED, ...RECORD_GUARDED, AUDIT_VERIFICATIONS_GUARD].map(
  (g) => g.table,
);

const refused = (table: string, op: string, detail = ''): string =>
  `aar: ${table} is write-once: ${op} refused${detail}`;

/** SQLite: insert guard for every unique key; with `full`, also the UPDATE guard and DELETE refusal. */
export async function guardSqliteTable(db: Kysely<unknown>, guard: GuardedTable, full: boolean): Promise<void> {
  const { table } = guard;
  const existing = guard.uniqueKeys
    .map((key) => `exists (select 1 from ${table} where ${key.map((c) => `${c} = new.${c}`).join(' and ')})`)
    .join(' or ');
  await sql`drop trigger if exists ${sql.raw(`${table}_guard_insert`)}`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_guard_insert`)} before insert on ${sql.table(table)}
    when ${sql.raw(existing)}
    begin select raise(abort, ${sql.lit(refused(table, 'replace', ': a row with this key exists'))}); end`.execute(db);
  if (!full) return;

  const columns = (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows.map(
    (r) => r.name,
  );
  const fixed = columns.filter((c) => !guard.stateColumns.includes(c));
  const unchanged = fixed.map((c) => `new.${c} is old.${c}`).join(' and ');
  const allowed = guard.sqliteTransition ? `${unchanged} and ${guard.sqliteTransition}` : unchanged;
  const detail = guard.stateColumns.length
    ? ` (only ${guard.stateColumns.join(', ')} may change, as the service changes them)`
    : '';
  await sql`drop trigger if exists ${sql.raw(`${table}_guard_update`)}`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_guard_update`)} before update on ${sql.table(table)}
    when not (${sql.raw(allowed)})
    begin select raise(abort, ${sql.lit(refused(table, 'update', detail))}); end`.execute(db);
  await sql`drop trigger if exists ${sql.raw(`${table}_no_delete`)}`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_no_delete`)} before delete on ${sql.table(table)}
    begin select raise(abort, ${sql.lit(refused(table, 'delete'))}); end`.execute(db);
}

/**
 * PostgreSQL: `aar_guard_update(state columns…)` compares the rows as JSON without the state columns, then checks
 * the table's transitions (the same as SQLite's above).
 */
export async function createPostgresGuardFunction(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace function aar_guard_update() returns trigger language plpgsql as $$
    begin
      if (to_jsonb(new) - tg_argv) is distinct from (to_jsonb(old) - tg_argv) then
        raise exception 'aar: % is write-once: update refused (only % may change, as the service changes them)',
          tg_table_name, array_to_string(tg_argv, ', ') using errcode = 'P0001';
      end if;
      if tg_table_name = 'decisions' then
        if not (new.outcome is not distinct from old.outcome
            or (old.outcome = 'reserved' and new.outcome in ('executed', 'failed'))
            or (old.outcome = 'executed' and new.outcome = 'refunded')) then
          raise exception 'aar: decisions is write-once: outcome % -> % refused', old.outcome, new.outcome
            using errcode = 'P0001';
        end if;
      elsif tg_table_name = 'approvals' then
        if not ((new.status is not distinct from old.status and new.decided_at is not distinct from old.decided_at
              and new.sca_reference is not distinct from old.sca_reference
              and new.consumed_by is not distinct from old.consumed_by)
            or (old.status = 'pending' and new.status in ('approved', 'rejected') and old.decided_at is null
              and new.decided_at is not null and new.consumed_by is not distinct from old.consumed_by)
            or (old.status = 'approved' and new.status = 'consumed' and old.consumed_by is null
              and new.consumed_by is not null and new.decided_at is not distinct from old.decided_at
              and new.sca_reference is not distinct from old.sca_reference)) then
          raise exception 'aar: approvals is write-once: status % -> % refused', old.status, new.status
            using errcode = 'P0001';
        end if;
      elsif tg_table_name = 'events' then
        if new.envelope is distinct from old.envelope and not (old.event_type = 'ns.card_token.created'
            and (new.envelope::jsonb #- '{data,last4}' #- '{data,erased}')
              = (old.envelope::jsonb #- '{data,last4}' #- '{data,erased}')
            and (new.envelope::jsonb #> '{data,last4}') = 'null'::jsonb
            and (new.envelope::jsonb #> '{data,erased}') = 'true'::jsonb) then
          raise exception 'aar: events is write-once: only erasure may change an envelope' using errcode = 'P0001';
        end if;
      end if;
      return new;
    end $$`.execute(db);
}

/** PostgreSQL: UPDATE guard, DELETE and TRUNCATE refused (aar_refuse_change() comes from 0003). */
export async function guardPostgresTable(db: Kysely<unknown>, guard: GuardedTable): Promise<void> {
  const { table } = guard;
  // no state columns: any UPDATE is refused (aar_guard_update() with no arguments would compare nothing)
  const guardCall = guard.stateColumns.length
    ? sql`aar_guard_update(${sql.join(guard.stateColumns.map((c) => sql.lit(c)))})`
    : sql`aar_refuse_change()`;
  await sql`create trigger ${sql.raw(`${table}_guard_update`)} before update on ${sql.table(table)}
    for each row execute function ${guardCall}`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_no_delete`)} before delete on ${sql.table(table)}
    for each row execute function aar_refuse_change()`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
    for each statement execute function aar_refuse_change()`.execute(db);
}
