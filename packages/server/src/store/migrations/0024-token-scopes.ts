import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/**
 * Token scopes (CONTRACT section 22, issue 30): `api_tokens.scopes`, a JSON array of scope names (`memory.read`, ...),
 * sorted and unique, `[]` for every existing token (they keep exactly what they could do: no opt-in route).
 * Both dialects add a column with a constant default in place; no row is rewritten by hand.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`alter table api_tokens add column scopes text not null default '[]'`.execute(db);
}
