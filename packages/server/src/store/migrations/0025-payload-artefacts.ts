import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Payload artefacts (CONTRACT section 22, issue 30; services/payload-artefacts, docs/artefacts.md).
 * `payload_artefacts`: one row per presented payload, written once in its verification's state (`verified` or
 * `rejected`: `received` is its first event, in the same transaction), and changed once at most, forward only:
 * `verified` -> `executed` with its `outcome` and `executed_at`. Nothing else ever moves; a rejected or executed row
 * is final. `verified_for` (the decision's id while verified or executed, else null) is unique: a decision has at
 * most one live artefact, also against two instances verifying at once.
 * Attacker assumption for the guards: SQL write access without the service key (write-once-guards.ts); an edit made
 * with the guards dropped is found by audit verify against the artefact's chained events.
 */
const EXECUTED_ONCE = `((new.state is old.state and new.outcome is old.outcome and new.executed_at is old.executed_at)
  or (old.state = 'verified' and new.state = 'executed' and old.outcome is null
    and new.outcome in ('executed', 'failed') and old.executed_at is null and new.executed_at is not null))`;

export const PAYLOAD_ARTEFACTS_GUARD: GuardedTable = {
  table: 'payload_artefacts',
  uniqueKeys: [['seq'], ['payload_artefact_id'], ['verified_for']],
  stateColumns: ['state', 'outcome', 'executed_at'],
  sqliteTransition: EXECUTED_ONCE,
};

/** For test/storage/sqlite-update-guards-complete.test.ts (the lead adds it there). */
export const PAYLOAD_ARTEFACT_GUARDS: readonly GuardedTable[] = [PAYLOAD_ARTEFACTS_GUARD];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('payload_artefacts'), dialect)
    .addColumn('payload_artefact_id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('agent_signature', 'text')
    .addColumn('agent_key_thumbprint', 'text')
    .addColumn('policy_decision_id', 'text', (c) => c.notNull())
    .addColumn('mandate_id', 'text')
    .addColumn('actor_entity_id', 'text')
    .addColumn('principal_entity_id', 'text')
    .addColumn('basket_hash', 'text')
    .addColumn('amount_minor', 'bigint')
    .addColumn('currency', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('verified_for', 'text', (c) => c.unique())
    .addColumn('outcome', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addColumn('executed_at', 'text')
    .addCheckConstraint('payload_artefacts_kind', sql`kind in ('checkout', 'basket', 'payment_instruction')`)
    .addCheckConstraint('payload_artefacts_state', sql`state in ('verified', 'rejected', 'executed')`)
    .addCheckConstraint('payload_artefacts_outcome', sql`outcome is null or outcome in ('executed', 'failed')`)
    .addCheckConstraint(
      'payload_artefacts_shape',
      sql`(state = 'rejected' and reason is not null and verified_for is null and outcome is null)
        or (state = 'verified' and reason is null and verified_for = policy_decision_id and outcome is null)
        or (state = 'executed' and reason is null and verified_for = policy_decision_id and outcome is not null
          and executed_at is not null)`,
    )
    .execute();
  // GET /v1/payload-artefacts?policy_decision_id=: a decision's artefacts, oldest first
  await db.schema
    .createIndex('payload_artefacts_decision')
    .on('payload_artefacts')
    .columns(['policy_decision_id', 'seq'])
    .execute();

  if (dialect === 'postgres') {
    await guardPostgresTable(db, PAYLOAD_ARTEFACTS_GUARD);
    // aar_guard_update() compares every column but the state columns; this one holds them to their one move
    await sql`create or replace function aar_payload_artefacts_forward() returns trigger language plpgsql as $$
      begin
        if not ((new.state = old.state and new.outcome is not distinct from old.outcome
              and new.executed_at is not distinct from old.executed_at)
            or (old.state = 'verified' and new.state = 'executed' and old.outcome is null
              and new.outcome in ('executed', 'failed') and old.executed_at is null
              and new.executed_at is not null)) then
          raise exception 'aar: payload_artefacts is write-once: state % -> % refused', old.state, new.state
            using errcode = 'P0001';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger payload_artefacts_forward before update on payload_artefacts
      for each row execute function aar_payload_artefacts_forward()`.execute(db);
  } else {
    await guardSqliteTable(db, PAYLOAD_ARTEFACTS_GUARD, true);
  }
}
