import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** The facts rules read (CONTRACT section 19): decision columns for counters, the principal's time zone. */
export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
