import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Policy content (CONTRACT section 19, docs/policy.md): rule packs, dictionaries, activations, backtests.
 * - `rule_packs` / `dictionaries`: one row per (name, version). A draft's document may be replaced by a new draft of
 *   the same version; publishing stores the service-signed RFC 8785 bytes and their `digest` (of the document without
 *   `signature`); from then on the document never changes, and the only move left is published -> retired.
 * - `rule_activations`: which published pack version applies to the deployment, a principal or a grant, in which
 *   mode; active -> deactivated, once, and nothing else ever changes.
 * - `backtests`: a pack version run against stored decisions (services/backtests, issue 27); running -> done | failed.
 * Every table is write-once but for those state columns (write-once-guards.ts), on both dialects.
 * Changes of `rule_activations` and `rule_packs` move the grant version (as migration 0009 does for the facts), so
 * every instance's cached policy set (services/policy/active-policy-set.ts) is dropped by the very next authorize.
 * INVARIANT: authorize's own transaction writes none of these tables.
 */
export const POLICY_GUARDS: readonly GuardedTable[] = [
  {
    table: 'rule_packs',
    uniqueKeys: [['seq'], ['name', 'version']],
    stateColumns: ['state', 'document', 'digest', 'domain', 'updated_at'],
    sqliteTransition: documentTransition(true),
  },
  {
    table: 'dictionaries',
    uniqueKeys: [['seq'], ['name', 'version']],
    stateColumns: ['state', 'document', 'digest', 'updated_at'],
    sqliteTransition: documentTransition(false),
  },
  {
    table: 'rule_activations',
    uniqueKeys: [['seq'], ['activation_id']],
    stateColumns: ['state', 'updated_at'],
    sqliteTransition: `(new.state is old.state or (old.state = 'active' and new.state = 'deactivated'))`,
  },
  {
    table: 'backtests',
    uniqueKeys: [['seq'], ['backtest_id']],
    stateColumns: ['state', 'done_count', 'total_count', 'result', 'error', 'updated_at'],
    sqliteTransition: `(old.state = 'running' and new.state in ('running', 'done', 'failed'))`,
  },
];

/** Tables whose changes move the grant version. */
export const POLICY_VERSIONED_TABLES = ['rule_packs', 'rule_activations'] as const;

/**
 * draft -> draft (a new draft document, no digest), draft -> published (a digest), published -> retired (document and
 * digest kept); a row that keeps its state keeps its document and digest (drafts aside).
 */
function documentTransition(withDomain: boolean): string {
  const same = (c: string) => `new.${c} is old.${c}`;
  const kept = ['document', 'digest', ...(withDomain ? ['domain'] : [])].map(same).join(' and ');
  return `((old.state = 'draft' and new.state = 'draft' and new.digest is null)
    or (old.state = 'draft' and new.state = 'published' and new.digest is not null ${withDomain ? `and ${same('domain')}` : ''})
    or (old.state = 'published' and new.state = 'retired' and ${kept})
    or (new.state is old.state and old.state <> 'draft' and ${kept}))`;
}

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of ['rule_packs', 'dictionaries'] as const) {
    let create = withSeq(db.schema.createTable(table), dialect)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn(table === 'rule_packs' ? 'pack_id' : 'dictionary_id', 'text', (c) => c.notNull());
    if (table === 'rule_packs') create = create.addColumn('domain', 'text', (c) => c.notNull());
    await create
      .addColumn('state', 'text', (c) => c.notNull())
      // the document as given (draft) or as published: the exact signed RFC 8785 bytes served and checked
      .addColumn('document', 'text', (c) => c.notNull())
      // `sha-256:` of the document without `signature`; null for a draft
      .addColumn('digest', 'text')
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint(`${table}_name_version`, ['name', 'version'])
      .addCheckConstraint(`${table}_state`, sql`state in ('draft', 'published', 'retired')`)
      .addCheckConstraint(`${table}_origin`, sql`origin in ('shipped', 'operator')`)
      .addCheckConstraint(`${table}_digest`, sql`(state = 'draft') = (digest is null)`)
      .execute();
  }
  await db.schema.createIndex('rule_packs_domain').on('rule_packs').columns(['domain', 'state', 'seq']).execute();

  await withSeq(db.schema.createTable('rule_activations'), dialect)
    .addColumn('activation_id', 'text', (c) => c.notNull().unique())
    .addColumn('pack_name', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('sector_pack', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'rule_activations_target',
      sql`target_kind in ('deployment', 'principal', 'grant')
      and (target_kind = 'deployment') = (target_id is null)`,
    )
    .addCheckConstraint('rule_activations_mode', sql`mode in ('enforce', 'shadow')`)
    .addCheckConstraint('rule_activations_state', sql`state in ('active', 'deactivated')`)
    .execute();
  // what authorize reads: the active activations of one target, in creation order
  await db.schema
    .createIndex('rule_activations_target')
    .on('rule_activations')
    .columns(['target_kind', 'target_id', 'state', 'seq'])
    .execute();
  await db.schema
    .createIndex('rule_activations_pack')
    .on('rule_activations')
    .columns(['pack_name', 'version', 'state'])
    .execute();

  await withSeq(db.schema.createTable('backtests'), dialect)
    .addColumn('backtest_id', 'text', (c) => c.notNull().unique())
    .addColumn('pack_name', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    // `{ from, until, principal_entity_id? }` as asked
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('done_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('backtests_state', sql`state in ('running', 'done', 'failed')`)
    .execute();

  for (const guard of POLICY_GUARDS) {
    if (dialect === 'sqlite') await guardSqliteTable(db, guard, true);
    else await guardPostgresTable(db, guard);
  }
  if (dialect === 'postgres') await guardPostgresTransitions(db);

  for (const table of POLICY_VERSIONED_TABLES) {
    if (dialect === 'postgres') {
      await sql`create trigger ${sql.raw(`${table}_bump_version`)} after insert or update or delete on ${sql.table(table)}
        for each statement execute function aar_bump_grant_version()`.execute(db);
      continue;
    }
    for (const op of ['insert', 'update', 'delete']) {
      await sql`create trigger ${sql.raw(`${table}_bump_version_${op}`)} after ${sql.raw(op)} on ${sql.table(table)}
        begin update grant_version set version = version + 1 where id = 1; end`.execute(db);
    }
  }
}

/**
 * PostgreSQL: the state transitions of these tables (the column comparison is aar_guard_update's, migration 0007), in
 * a second BEFORE UPDATE trigger of their own so the shared guard function stays as it is.
 */
async function guardPostgresTransitions(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace function aar_guard_policy_transition() returns trigger language plpgsql as $$
    declare kept boolean;
    begin
      if tg_table_name in ('rule_packs', 'dictionaries') then
        kept := new.document is not distinct from old.document and new.digest is not distinct from old.digest
          and (tg_table_name = 'dictionaries' or to_jsonb(new)->'domain' = to_jsonb(old)->'domain');
        if not ((old.state = 'draft' and new.state = 'draft' and new.digest is null)
            or (old.state = 'draft' and new.state = 'published' and new.digest is not null
              and (tg_table_name = 'dictionaries' or to_jsonb(new)->'domain' = to_jsonb(old)->'domain'))
            or (old.state = 'published' and new.state = 'retired' and kept)
            or (new.state = old.state and old.state <> 'draft' and kept)) then
          raise exception 'aar: % is write-once: % -> % refused', tg_table_name, old.state, new.state
            using errcode = 'P0001';
        end if;
      elsif tg_table_name = 'rule_activations' then
        if not (new.state = old.state or (old.state = 'active' and new.state = 'deactivated')) then
          raise exception 'aar: rule_activations is write-once: % -> % refused', old.state, new.state
            using errcode = 'P0001';
        end if;
      elsif tg_table_name = 'backtests' then
        if not (old.state = 'running' and new.state in ('running', 'done', 'failed')) then
          raise exception 'aar: backtests is write-once: % -> % refused', old.state, new.state using errcode = 'P0001';
        end if;
      end if;
      return new;
    end $$`.execute(db);
  for (const { table } of POLICY_GUARDS) {
    await sql`create trigger ${sql.raw(`${table}_guard_transition`)} before update on ${sql.table(table)}
      for each row execute function aar_guard_policy_transition()`.execute(db);
  }
}
