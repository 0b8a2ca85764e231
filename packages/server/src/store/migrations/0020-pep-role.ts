import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/**
 * The `pep` role (CONTRACT section 20, issue 28): a policy enforcement point's credential, which may only ask the
 * AuthZEN endpoints for decisions. A `pep` token may be bound to one principal (then it evaluates for that principal
 * only); a `principal` token must be bound; every other role is never bound.
 * The two CHECK constraints of `api_tokens` widen. PostgreSQL drops and re-adds them. SQLite cannot change a CHECK in
 * place: the table is rebuilt from its own stored DDL with only the two constraints rewritten (create the new table,
 * copy every row with its `seq`, drop the old, rename), inside this migration's transaction. No table references
 * `api_tokens` and it has no trigger, so nothing else moves; its indexes are its inline UNIQUE constraints, which the
 * copied DDL keeps. Existing rows satisfy the new constraints (they are wider), so the copy never fails.
 */
const OLD_ROLE = `role in ('admin', 'runtime', 'principal', 'auditor')`;
const NEW_ROLE = `role in ('admin', 'runtime', 'principal', 'auditor', 'pep')`;
const OLD_BINDING = `(role = 'principal') = (principal_entity_id is not null)`;
const NEW_BINDING =
  `(role = 'principal' and principal_entity_id is not null) or role = 'pep' ` +
  `or (role not in ('principal', 'pep') and principal_entity_id is null)`;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table api_tokens drop constraint api_tokens_role`.execute(db);
    await sql`alter table api_tokens drop constraint api_tokens_principal_binding`.execute(db);
    await sql`alter table api_tokens add constraint api_tokens_role check (${sql.raw(NEW_ROLE)})`.execute(db);
    await sql`alter table api_tokens add constraint api_tokens_principal_binding check (${sql.raw(NEW_BINDING)})`.execute(
      db,
    );
    return;
  }
  const row = (
    await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'api_tokens'`.execute(db)
  ).rows[0];
  if (!row) throw new Error('migration 0020: table api_tokens is missing');
  const ddl = row.sql;
  if (!ddl.includes(OLD_ROLE) || !ddl.includes(OLD_BINDING)) {
    throw new Error('migration 0020: api_tokens does not have the constraints of migration 0001');
  }
  const rebuilt = ddl
    .replace(OLD_ROLE, NEW_ROLE)
    .replace(OLD_BINDING, `(${NEW_BINDING})`)
    .replace(/^create table\s+("?)api_tokens\1/i, 'create table "api_tokens_0020"');
  if (!rebuilt.startsWith('create table "api_tokens_0020"')) {
    throw new Error('migration 0020: unexpected DDL for api_tokens');
  }
  const columns = (await sql<{ name: string }>`select name from pragma_table_info('api_tokens')`.execute(db)).rows
    .map((c) => `"${c.name}"`)
    .join(', ');
  await sql.raw(rebuilt).execute(db);
  await sql.raw(`insert into "api_tokens_0020" (${columns}) select ${columns} from "api_tokens"`).execute(db);
  await sql`drop table api_tokens`.execute(db);
  await sql`alter table api_tokens_0020 rename to api_tokens`.execute(db);
}
