/**
 * The statements of the audit appender (audit-appender.ts), prepared once (store/prepared-query.ts): every decision
 * inserts its entry and Merkle nodes, every write batch reads and writes the tip.
 */
import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import type { AuditEntriesTable, AuditNodesTable, Database } from '../store/index.ts';
import { prepareListQuery, prepareQuery, type PreparedQuery } from '../store/prepared-query.ts';

/** inserts of up to this many rows (a decision's entry, its new Merkle nodes) are prepared once per row count */
export const PREPARED_ROWS = 32;

export type EntryRow = Insertable<AuditEntriesTable>;
export type NodeRow = Insertable<AuditNodesTable>;

const ENTRY_KEYS: ReadonlyArray<keyof EntryRow & string> = [
  'idx',
  'audit_id',
  'kind',
  'subject_ref',
  'occurred_at',
  'entry',
  'leaf_hash',
];
const NODE_KEYS: ReadonlyArray<keyof NodeRow & string> = ['level', 'idx', 'hash'];

export const INSERT_ENTRIES = prepareListQuery([], ENTRY_KEYS, (db, _args, rows: EntryRow[]) =>
  db.insertInto('audit_entries').values(rows),
);

export const INSERT_NODES = prepareListQuery([], NODE_KEYS, (db, _args, rows: NodeRow[]) =>
  db.insertInto('audit_nodes').values(rows),
);

/** the tip, read at the start of every batch */
export const READ_TIP = prepareQuery([], (db) => db.selectFrom('audit_state').selectAll().where('id', '=', 1));

/** the same, locked on PostgreSQL: batches of all instances append in one order */
export const READ_TIP_FOR_UPDATE = prepareQuery([], (db) =>
  db.selectFrom('audit_state').selectAll().where('id', '=', 1).forUpdate(),
);

export const WRITE_TIP = prepareQuery(
  ['size', 'last_leaf_hash', 'frontier', 'updated_at'],
  (db, args: { size: number; last_leaf_hash: string; frontier: string; updated_at: string }) =>
    db.updateTable('audit_state').set(args).where('id', '=', 1),
);

/** the joined flush's bounds: past them (large batches) the entries, the nodes and the tip are written apart */
export const FLUSH_MAX_ENTRIES = 16;
export const FLUSH_MAX_NODES = 40;

type TipArgs = { size: number; last_leaf_hash: string; frontier: string; updated_at: string };
const flushStatements = new Map<string, PreparedQuery<Record<string, unknown>, unknown>>();

/**
 * PostgreSQL only: the end of a batch as one statement (data-modifying CTEs): its entries, their Merkle nodes and
 * the new tip, written all or nothing; returned compiled with its values bound, for the caller to run or hold.
 * Prepared once per (entries, nodes) count, both bounded by FLUSH_MAX_ENTRIES and FLUSH_MAX_NODES; at least one
 * entry. The tip row is already locked (read `FOR UPDATE`).
 */
export function batchEndStatement(
  db: Kysely<Database>,
  entries: readonly EntryRow[],
  nodes: readonly NodeRow[],
  tip: TipArgs,
): CompiledQuery<unknown> {
  const key = `${entries.length}/${nodes.length}`;
  let statement = flushStatements.get(key);
  if (!statement) {
    const entryNames = entries.flatMap((_, i) => ENTRY_KEYS.map((k) => `e${i}.${k}`));
    const nodeNames = nodes.flatMap((_, i) => NODE_KEYS.map((k) => `n${i}.${k}`));
    const rowsOf = <Row>(args: Record<string, unknown>, prefix: string, count: number, keys: readonly string[]) =>
      Array.from(
        { length: count },
        (_, i) => Object.fromEntries(keys.map((k) => [k, args[`${prefix}${i}.${k}`]])) as Row,
      );
    const entryCount = entries.length;
    const nodeCount = nodes.length;
    statement = prepareQuery<Record<string, unknown>, unknown>(
      ['size', 'last_leaf_hash', 'frontier', 'updated_at', ...entryNames, ...nodeNames],
      (qdb, args) => {
        const withEntries = qdb.with('written_entries', (qc) =>
          qc
            .insertInto('audit_entries')
            .values(rowsOf<EntryRow>(args, 'e', entryCount, ENTRY_KEYS))
            .returning('idx'),
        );
        const withNodes =
          nodeCount === 0
            ? withEntries
            : withEntries.with('written_nodes', (qc) =>
                qc
                  .insertInto('audit_nodes')
                  .values(rowsOf<NodeRow>(args, 'n', nodeCount, NODE_KEYS))
                  .returning('idx'),
              );
        return withNodes
          .updateTable('audit_state')
          .set({
            size: args.size as number,
            last_leaf_hash: args.last_leaf_hash as string,
            frontier: args.frontier as string,
            updated_at: args.updated_at as string,
          })
          .where('id', '=', 1);
      },
    );
    flushStatements.set(key, statement);
  }
  const args: Record<string, unknown> = { ...tip };
  entries.forEach((row, i) => {
    for (const k of ENTRY_KEYS) args[`e${i}.${k}`] = row[k];
  });
  nodes.forEach((row, i) => {
    for (const k of NODE_KEYS) args[`n${i}.${k}`] = row[k];
  });
  return statement.bind(db, args);
}
