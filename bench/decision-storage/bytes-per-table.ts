/**
 * Bytes on disk per table of a SQLite store, from the `dbstat` virtual table after a WAL checkpoint: `pages` is what
 * the file holds (whole pages, free space in them included), `payload` the bytes of the rows themselves. Indexes are
 * counted with their table (`sqlite_master.tbl_name`), so a table's figure includes what its indexes cost.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../packages/server/src/store/index.ts';

export interface TableBytes {
  pages: number;
  payload: number;
}

export async function bytesPerTable(db: Kysely<Database>): Promise<Map<string, TableBytes>> {
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  const rows = (
    await sql<{ tbl: string | null; name: string; pages: number; payload: number }>`
      select m.tbl_name as tbl, s.name as name, sum(s.pgsize) as pages, sum(s.payload) as payload
      from dbstat s left join sqlite_master m on m.name = s.name group by s.name`.execute(db)
  ).rows;
  const out = new Map<string, TableBytes>();
  for (const row of rows) {
    const table = row.tbl ?? row.name;
    const sum = out.get(table) ?? { pages: 0, payload: 0 };
    sum.pages += Number(row.pages);
    sum.payload += Number(row.payload);
    out.set(table, sum);
  }
  return out;
}

/** after − before, per table, for the tables that grew */
export function grownTables(before: Map<string, TableBytes>, after: Map<string, TableBytes>): Map<string, TableBytes> {
  const out = new Map<string, TableBytes>();
  for (const [table, now] of after) {
    const was = before.get(table) ?? { pages: 0, payload: 0 };
    if (now.pages !== was.pages || now.payload !== was.payload) {
      out.set(table, { pages: now.pages - was.pages, payload: now.payload - was.payload });
    }
  }
  return out;
}
