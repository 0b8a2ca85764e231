import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** compliance reports and schedules (CONTRACT 22, issue 30): filled by the reports helper. */
export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
