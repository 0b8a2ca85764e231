import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** agent metadata attestations (CONTRACT 22, issue 30): filled by the metadata helper. */
export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
