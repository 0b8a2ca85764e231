/**
 * Hot-path statements built and compiled by Kysely once per dialect, then executed with fresh parameters: building
 * and compiling a query costs more than SQLite takes to run a small one (~5 us against ~3 us), and authorize runs
 * about twenty. The query is built once with placeholder values (unique strings), compiled, and the position of each
 * placeholder among the compiled parameters recorded; an execution copies the parameters with the placeholders
 * replaced, and runs through Kysely's executor like any query (same connection, same locks, same transaction).
 *
 * INVARIANTS
 * - Every placeholder occurs exactly once among the compiled parameters and nowhere in the SQL text (checked when
 *   compiling, else it throws): a value can land only in its own position, and only as a bound parameter.
 * - The compiled form is kept per dialect adapter (one per Kysely instance, shared by its transactions), so a query
 *   compiled for SQLite never runs on PostgreSQL.
 * - Only shapes fixed at build time: a list of variable length (`in (...)`) needs one prepared query per length.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { directSqliteOf } from './direct-sqlite.ts';
import type { Database } from './schema.ts';

const PLACEHOLDER_PREFIX = '\u0000aar-placeholder:';

type Slot = readonly [position: number, name: string];

interface Compiled {
  query: CompiledQuery;
  slots: readonly Slot[];
}

export interface PreparedQuery<Args, Row> {
  /** runs the statement on `db` (a Kysely instance or a transaction) with `args` bound */
  execute(db: Kysely<Database>, args: Args): Promise<QueryResult<Row>>;
  /** the statement compiled for `db`'s dialect with `args` bound, to run later (a held statement) */
  bind(db: Kysely<Database>, args: Args): CompiledQuery<Row>;
}

/**
 * `build` receives placeholders typed as the arguments; it must use each as a value (a bound parameter) exactly once.
 * Constants written in `build` stay in the compiled statement as they are.
 */
export function prepareQuery<Args extends Record<string, unknown>, Row>(
  names: ReadonlyArray<keyof Args & string>,
  build: (db: Kysely<Database>, args: Args) => Compilable<Row>,
): PreparedQuery<Args, Row> {
  const byAdapter = new WeakMap<object, Compiled>();
  const compile = (db: Kysely<Database>): Compiled => {
    const placeholders = Object.fromEntries(names.map((name) => [name, `${PLACEHOLDER_PREFIX}${name}`])) as Args;
    const query = build(db, placeholders).compile();
    const slots: Slot[] = [];
    query.parameters.forEach((value, position) => {
      if (typeof value === 'string' && value.startsWith(PLACEHOLDER_PREFIX)) {
        slots.push([position, value.slice(PLACEHOLDER_PREFIX.length)]);
      }
    });
    const used = slots.map(([, name]) => name).sort();
    if (used.join('\n') !== [...names].sort().join('\n') || query.sql.includes(PLACEHOLDER_PREFIX)) {
      throw new Error(`prepared query: every placeholder must be bound exactly once (${query.sql})`);
    }
    return { query, slots };
  };
  const bind = (db: Kysely<Database>, args: Args): CompiledQuery<Row> => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      compiled = compile(db);
      byAdapter.set(adapter, compiled);
    }
    const parameters = compiled.query.parameters.slice();
    for (const [position, name] of compiled.slots) parameters[position] = args[name];
    return { ...compiled.query, parameters } as CompiledQuery<Row>;
  };
  return {
    bind,
    execute: (db, args) => executeCompiled(db, bind(db, args)),
  };
}

/** Runs a compiled query: synchronously on the embedded SQLite when that is safe (direct-sqlite.ts), else via Kysely. */
export function executeCompiled<Row>(db: Kysely<Database>, query: CompiledQuery<Row>): Promise<QueryResult<Row>> {
  const direct = directSqliteOf(db);
  if (direct?.canRun(db)) return direct.run<Row>(query.sql, query.parameters);
  return db.executeQuery<Row>(query);
}

export interface PreparedListQuery<Args, Item, Row> {
  /** runs the statement prepared for `list.length` items, with `args` and the items bound */
  execute(db: Kysely<Database>, args: Args, list: readonly Item[]): Promise<QueryResult<Row>>;
}

/**
 * A query with one list of variable length: one prepared query per length, made on first use (at most `callers keep lengths
 * small and bounded). `build` receives the fixed arguments and that many item placeholders:
 * scalars, or with `itemKeys` objects of those keys (rows of a multi-row insert).
 */
export function prepareListQuery<Args extends Record<string, unknown>, Item, Row>(
  names: ReadonlyArray<keyof Args & string>,
  itemKeys: ReadonlyArray<keyof Item & string> | undefined,
  build: (db: Kysely<Database>, args: Args, items: Item[]) => Compilable<Row>,
): PreparedListQuery<Args, Item, Row> {
  const byLength = new Map<number, PreparedQuery<Record<string, unknown>, Row>>();
  const slotName = (i: number, key?: string) => (key === undefined ? `#${i}` : `#${i}.${key}`);
  const prepareLength = (length: number) => {
    const indexes = Array.from({ length }, (_, i) => i);
    const itemNames = indexes.flatMap((i) => (itemKeys ? itemKeys.map((key) => slotName(i, key)) : [slotName(i)]));
    return prepareQuery<Record<string, unknown>, Row>([...names, ...itemNames], (db, all) => {
      const items = indexes.map((i) =>
        itemKeys ? Object.fromEntries(itemKeys.map((key) => [key, all[slotName(i, key)]])) : all[slotName(i)],
      );
      return build(db, all as Args, items as Item[]);
    });
  };
  return {
    execute(db, args, list) {
      let query = byLength.get(list.length);
      if (!query) {
        query = prepareLength(list.length);
        byLength.set(list.length, query);
      }
      const all: Record<string, unknown> = { ...args };
      list.forEach((item, i) => {
        if (!itemKeys) all[slotName(i)] = item;
        else for (const key of itemKeys) all[slotName(i, key)] = item[key];
      });
      return query.execute(db, all);
    },
  };
}
