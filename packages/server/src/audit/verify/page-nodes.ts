/**
 * The stored Merkle nodes that appending leaves [begin, end) completes, for the verifier to compare with the ones it
 * recomputes: node (L, j) covers leaves [j·2^L, (j+1)·2^L) and is completed by leaf (j+1)·2^L − 1.
 * Read as one string per level (`string_agg(hash, '' order by idx)`, SQLite 3.44+ and PostgreSQL): a page of
 * 10,000 leaves completes about 20,000 nodes, and twenty strings cost far less to read than 20,000 rows. When a level's
 * string is not exactly its nodes, 44 base64 characters each in index order (a node missing, added or not 32 bytes),
 * that page's nodes are read row by row instead, so the comparison still names the first node that differs.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';

/** standard base64 of 32 bytes */
const HASH_CHARS = 44;

export interface PageNodes {
  /** whether node (level, index) is stored with exactly this hash */
  has(level: number, index: number, hashBase64: string): boolean;
}

interface LevelRange {
  level: number;
  first: number;
  last: number;
}

export async function readPageNodes(db: Kysely<Database>, begin: number, end: number): Promise<PageNodes> {
  const levels: LevelRange[] = [];
  for (let level = 0, width = 1; width <= end; level++, width *= 2) {
    const first = Math.ceil((begin + 1) / width) - 1;
    const last = Math.floor(end / width) - 1;
    if (first <= last) levels.push({ level, first, last });
  }
  if (levels.length === 0) return { has: () => false };
  // one range of the (level, idx) key per level: an OR of ranges would scan the table
  const perLevel = levels.map(
    (l) => sql`select ${l.level} as level, string_agg(hash, '' order by idx) as hashes, count(*) as n
      from audit_nodes where level = ${l.level} and idx >= ${l.first} and idx <= ${l.last}`,
  );
  const rows = (
    await sql<{ level: number | string; hashes: string | null; n: number | string }>`${sql.join(
      perLevel,
      sql` union all `,
    )}`.execute(db)
  ).rows;
  const byLevel = new Map<number, string>();
  for (const row of rows) {
    const range = levels.find((l) => l.level === Number(row.level));
    const count = range ? range.last - range.first + 1 : -1;
    if (Number(row.n) !== count || row.hashes?.length !== count * HASH_CHARS) return readRowByRow(db, levels);
    byLevel.set(range!.level, row.hashes);
  }
  const firsts = new Map(levels.map((l) => [l.level, l.first]));
  return {
    has(level, index, hashBase64) {
      const hashes = byLevel.get(level);
      if (hashes === undefined) return false;
      return hashes.startsWith(hashBase64, (index - firsts.get(level)!) * HASH_CHARS);
    },
  };
}

async function readRowByRow(db: Kysely<Database>, levels: readonly LevelRange[]): Promise<PageNodes> {
  const rows = await db
    .selectFrom('audit_nodes')
    .select(['level', 'idx', 'hash'])
    .where((eb) =>
      eb.or(levels.map((l) => eb.and([eb('level', '=', l.level), eb('idx', '>=', l.first), eb('idx', '<=', l.last)]))),
    )
    .execute();
  const stored = new Map(rows.map((row) => [`${row.level}:${Number(row.idx)}`, row.hash]));
  return { has: (level, index, hashBase64) => stored.get(`${level}:${index}`) === hashBase64 };
}
