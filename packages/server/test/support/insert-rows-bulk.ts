/**
 * Inserts many rows (fixtures: 100k grants) with multi-row INSERTs built once per chunk size and passed to the driver
 * as compiled queries: Kysely's builder would compile each call anew, which costs more than the writes. Table and
 * column names come from code, never from input; values are always bound parameters.
 */
import { CompiledQuery, type Transaction } from 'kysely';
import type { Dialect } from '../../src/store/dialect.ts';
import type { Database } from '../../src/store/index.ts';

/**
 * Rows per statement. SQLite: a few hundred, so the statement text stays small and the store's statement cache
 * (statement-cache.ts) prepares it once; PostgreSQL: as many as fit in 30,000 parameters (65,535 allowed), since
 * each statement is a round trip.
 */
const SQLITE_ROWS = 500;
const POSTGRES_PARAMETERS = 30_000;

export async function insertRowsBulk(
  trx: Transaction<Database>,
  dialect: Dialect,
  table: keyof Database & string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
): Promise<void> {
  if (rows.length === 0) return;
  const perChunk = dialect === 'postgres' ? Math.max(1, Math.floor(POSTGRES_PARAMETERS / columns.length)) : SQLITE_ROWS;
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const statements = new Map<number, string>();
  const statementFor = (count: number): string => {
    let text = statements.get(count);
    if (text === undefined) {
      const tuples: string[] = [];
      for (let r = 0; r < count; r++) {
        const base = r * columns.length;
        const marks = columns.map((_, c) => (dialect === 'postgres' ? `$${base + c + 1}` : '?'));
        tuples.push(`(${marks.join(', ')})`);
      }
      text = head + tuples.join(', ');
      statements.set(count, text);
    }
    return text;
  };
  for (let start = 0; start < rows.length; start += perChunk) {
    const chunk = rows.slice(start, start + perChunk);
    const parameters: unknown[] = [];
    for (const row of chunk) {
      if (row.length !== columns.length) throw new Error(`a row for ${table} has ${row.length} values`);
      for (const value of row) parameters.push(value);
    }
    await trx.executeQuery(CompiledQuery.raw(statementFor(chunk.length), parameters));
  }
}
