/**
 * PostgreSQL: statements whose results nobody reads (`begin`, a write unit's savepoint, a batch's last write) travel
 * with the next statement instead of costing a round trip of their own. Kysely's PostgresDialect does the rest
 * unchanged.
 *
 * A query marked with `deferredStatement()` or `deferred()` returns at once, empty, and is held on its connection;
 * the next query on that connection sends what is held first and then its own, without waiting in between: the
 * pool's clients run in node-postgres' pipeline mode, so they go out together and their answers come back in order.
 * `begin` is held the same way. A write batch's `begin`, its first unit's savepoint and that unit's first statement
 * thus take one round trip, where they took three; each later unit's release and savepoint ride on its first
 * statement too, and the batch's audit write (entries, nodes, tip) rides on its COMMIT.
 *
 * INVARIANTS
 * - Order on the wire is the order of the calls: what is held is written, in order, before the statement that
 *   carries it. Kysely runs one query at a time per transaction connection, so nothing else can come in between.
 * - A held statement's failure is never lost: the carrying query waits for all of them and throws the first held
 *   failure before its own (PostgreSQL then refuses the carried statement too: the transaction is aborted, and a
 *   COMMIT there ends in a rollback). Commit and rollback flush what is held like any query, and a connection
 *   released with something still held (a held statement outside a transaction) sends it before it goes back to
 *   the pool, so nothing held ever reaches another caller's query.
 * - Held parameterless texts (the marked constants, `begin`) of our own are joined into one simple-protocol message;
 *   a held query with parameters goes as its own extended-protocol message, its values bound, never concatenated.
 * - Pipeline mode changes nothing for a caller that awaits each query, which every other path does. It refuses
 *   cursors and `rows` (portal) queries, which this service does not use.
 */
import {
  CompiledQuery,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

const DEFERRED = new WeakSet<CompiledQuery>();

/** Marks a parameterless statement whose result is not read: it waits for the next query on its connection. */
export function deferredStatement(sql: string): CompiledQuery {
  return deferred(CompiledQuery.raw(sql));
}

/**
 * Marks `query` (a compiled query, parameters bound) as held: executing it returns no rows at once, and it goes out
 * with the next query on the connection, which fails if it fails. For a write whose result is not read and whose
 * failure may surface one statement later without harm: the last write before a COMMIT.
 */
export function deferred<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  DEFERRED.add(query);
  return query;
}

/** The held queries as messages: runs of parameterless texts joined into one, each parameterized query alone. */
function messagesOf(held: readonly CompiledQuery[]): CompiledQuery[] {
  const messages: CompiledQuery[] = [];
  let texts: string[] = [];
  for (const query of held) {
    if (query.parameters.length === 0) {
      texts.push(query.sql);
      continue;
    }
    if (texts.length > 0) messages.push(CompiledQuery.raw(texts.join('; ')));
    texts = [];
    messages.push(query);
  }
  if (texts.length > 0) messages.push(CompiledQuery.raw(texts.join('; ')));
  return messages;
}

const EMPTY: QueryResult<never> = { rows: [] };
const BEGIN = CompiledQuery.raw('begin');

class DeferringConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  #held: CompiledQuery[] = [];

  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }

  get holding(): boolean {
    return this.#held.length > 0;
  }

  hold(query: CompiledQuery): void {
    this.#held.push(query);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (DEFERRED.has(query)) {
      this.hold(query);
      return EMPTY;
    }
    if (this.#held.length === 0) return this.inner.executeQuery<R>(query);
    const messages = messagesOf(this.#held);
    this.#held = [];
    // every call reaches the client before any answer is awaited: one round trip in pipeline mode
    const settled = await Promise.allSettled([
      ...messages.map((message) => this.inner.executeQuery(message)),
      this.inner.executeQuery<R>(query),
    ]);
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
    return (settled[settled.length - 1] as PromiseFulfilledResult<QueryResult<R>>).value;
  }

  /** Sends what is held, if anything, on its own (a connection going back to the pool). */
  async flush(): Promise<void> {
    if (this.#held.length > 0) await this.executeQuery(CompiledQuery.raw('select 1'));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.#held.length > 0) throw new Error('a stream cannot carry held statements');
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class DeferringDriver implements Driver {
  readonly #inner: Driver;
  readonly #wrapped = new WeakMap<DatabaseConnection, DeferringConnection>();

  constructor(inner: Driver) {
    this.#inner = inner;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection();
    let connection = this.#wrapped.get(inner);
    if (!connection) {
      connection = new DeferringConnection(inner);
      this.#wrapped.set(inner, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) return this.#inner.beginTransaction(connection, settings);
    (connection as DeferringConnection).hold(BEGIN);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  savepoint(...args: Parameters<NonNullable<Driver['savepoint']>>): Promise<void> {
    return this.#inner.savepoint!(...args);
  }

  rollbackToSavepoint(...args: Parameters<NonNullable<Driver['rollbackToSavepoint']>>): Promise<void> {
    return this.#inner.rollbackToSavepoint!(...args);
  }

  releaseSavepoint(...args: Parameters<NonNullable<Driver['releaseSavepoint']>>): Promise<void> {
    return this.#inner.releaseSavepoint!(...args);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const deferring = connection as DeferringConnection;
    try {
      if (deferring.holding) await deferring.flush();
    } finally {
      await this.#inner.releaseConnection(deferring.inner);
    }
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

/** PostgresDialect whose driver holds deferred statements (and `begin`) for the next query on the connection. */
export class DeferringPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new DeferringDriver(super.createDriver());
  }
}
