import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** signed search results (CONTRACT 22, issue 30): filled by the search/data-flow helper. */
export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
