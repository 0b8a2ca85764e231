import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** payload artefacts (CONTRACT 22, issue 30): filled by the artefacts helper. */
export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
