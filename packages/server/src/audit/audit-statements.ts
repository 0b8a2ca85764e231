/**
 * The statements of the audit appender (audit-appender.ts), prepared once (store/prepared-query.ts): every decision
 * inserts its entry and Merkle nodes, every write batch reads and writes the tip.
 */
import type { Insertable } from 'kysely';
import type { AuditEntriesTable, AuditNodesTable } from '../store/index.ts';
import { prepareListQuery, prepareQuery } from '../store/prepared-query.ts';

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
