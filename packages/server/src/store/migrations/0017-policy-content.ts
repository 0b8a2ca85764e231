import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** Policy content (CONTRACT section 19): rule packs, dictionaries, activations, backtests. Filled in by issue 27. */
export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
