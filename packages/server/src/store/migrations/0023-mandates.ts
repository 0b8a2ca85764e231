import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Payment-protocol mandates and allowances (CONTRACT section 21, issue 29; services/mandates, services/allowances).
 * - `mandate_issuers`: the trusted AP2 issuers an admin registered, with the JWKS their keys come from (given inline,
 *   or fetched once from `jwks_uri` at registration and kept here). Write-once: a mandate's issuer key comes from
 *   this row only, so nobody may swap it afterwards; `audit_id` names the audit entry committing to the row.
 * - `mandates`: one row per accepted AP2 mandate (`ns:mandate:<uuid>`) or ACP allowance (`ns:allowance:<uuid>`),
 *   bound one to one to the grant made from it (`grant_id`, and `grants.mandate_id` back). Write-once but for
 *   `used_by`, which moves once from null to the allowed decision that spent a single-use allowance. A document is
 *   accepted once per format (`digest` unique per format). `root_grant_id` restates the grant's root so a revocation
 *   cascade finds the mandates it reached through one index range.
 * - `mandate_nonces`: the key-binding nonces of accepted AP2 presentations, per holder key: a nonce is accepted once.
 * - `grants.mandate_id`: the mandate or allowance a grant was made from (null for every other grant).
 * Attacker assumption for the guards: SQL write access without the service key (write-once-guards.ts).
 */
export const MANDATE_ISSUERS_GUARD: GuardedTable = {
  table: 'mandate_issuers',
  uniqueKeys: [['issuer'], ['audit_id']],
  stateColumns: [],
};

/** `used_by` may only go from null to a decision id, once. */
const USED_ONCE = '(new.used_by is old.used_by or (old.used_by is null and new.used_by is not null))';

export const MANDATES_GUARD: GuardedTable = {
  table: 'mandates',
  uniqueKeys: [['mandate_id'], ['grant_id'], ['format', 'digest']],
  stateColumns: ['used_by'],
  sqliteTransition: USED_ONCE,
};

export const MANDATE_GUARDS: readonly GuardedTable[] = [MANDATE_ISSUERS_GUARD, MANDATES_GUARD];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('mandate_issuers')
    .addColumn('issuer', 'text', (c) => c.primaryKey())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('jwks', 'text', (c) => c.notNull())
    .addColumn('jwks_uri', 'text')
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('mandate_issuers_format', sql`format in ('ap2')`)
    .execute();

  await db.schema
    .createTable('mandates')
    .addColumn('mandate_id', 'text', (c) => c.primaryKey())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text')
    .addColumn('principal_entity_id', 'text', (c) => c.notNull())
    .addColumn('actor_entity_id', 'text', (c) => c.notNull())
    .addColumn('parent_grant_id', 'text', (c) => c.notNull())
    .addColumn('root_grant_id', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull().unique())
    .addColumn('constraints', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('single_use', 'integer', (c) => c.notNull())
    .addColumn('checkout_session_id', 'text')
    .addColumn('vaulted_token_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('used_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('mandates_format_digest', ['format', 'digest'])
    .addCheckConstraint('mandates_format', sql`format in ('ap2', 'acp')`)
    .addCheckConstraint('mandates_single_use', sql`single_use in (0, 1)`)
    .execute();
  await db.schema.createIndex('mandates_root').on('mandates').columns(['root_grant_id', 'grant_id']).execute();

  await db.schema
    .createTable('mandate_nonces')
    .addColumn('key_thumbprint', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('mandate_nonces_pk', ['key_thumbprint', 'nonce'])
    .execute();

  await db.schema.alterTable('grants').addColumn('mandate_id', 'text').execute();
  // the few grants made from mandates, for audit verify's check that each names a mandate that names it
  await db.schema
    .createIndex('grants_mandate')
    .on('grants')
    .column('mandate_id')
    .where(sql.ref('mandate_id'), 'is not', null)
    .execute();

  if (dialect === 'postgres') {
    await guardPostgresTable(db, MANDATE_ISSUERS_GUARD);
    await guardPostgresTable(db, MANDATES_GUARD);
    // aar_guard_update() compares every column but used_by; this one holds used_by to its one transition
    await sql`create or replace function aar_mandates_used_once() returns trigger language plpgsql as $$
      begin
        if new.used_by is distinct from old.used_by and old.used_by is not null then
          raise exception 'aar: mandates is write-once: used_by is set once' using errcode = 'P0001';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger mandates_used_once before update on mandates
      for each row execute function aar_mandates_used_once()`.execute(db);
  } else {
    await guardSqliteTable(db, MANDATE_ISSUERS_GUARD, true);
    await guardSqliteTable(db, MANDATES_GUARD, true);
  }
}
