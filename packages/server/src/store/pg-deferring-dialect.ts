/**
 * PostgreSQL: statements whose results nobody reads (`begin`, a write unit's savepoint) travel with the next
 * statement instead of costing a round trip of their own. Kysely's PostgresDialect does the rest unchanged.
 *
 * A query marked with `deferredStatement()` returns at once, empty, and is held on its connection; the next query on
 * that connection sends the held text first (one simple-protocol message, no parameters) and then its own, without
 * waiting in between: the pool's clients run in node-postgres' pipeline mode, so the two go out together and their
 * answers come back in order. `begin` is held the same way. A write batch's `begin`, its first unit's savepoint and
 * that unit's first statement thus take one round trip, where they took three; each later unit's release and
 * savepoint ride on its first statement too.
 *
 * INVARIANTS
 * - Order on the wire is the order of the calls: the held text is written before the statement that carries it.
 *   Kysely runs one query at a time per transaction connection, so nothing else can come in between.
 * - A held statement's failure is never lost: the carrying query waits for both and throws the held one's error
 *   first (PostgreSQL then refuses the carried statement too: the transaction is aborted). Commit and rollback flush
 *   what is held like any query, so a connection goes back to the pool with nothing held.
 * - Only parameterless texts of our own are ever held (the marked constants, `begin`): nothing a client sent is
 *   concatenated into SQL.
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
  const query = CompiledQuery.raw(sql);
  DEFERRED.add(query);
  return query;
}

const EMPTY: QueryResult<never> = { rows: [] };

class DeferringConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  #held: string[] = [];

  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }

  hold(sql: string): void {
    this.#held.push(sql);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (DEFERRED.has(query)) {
      this.hold(query.sql);
      return EMPTY;
    }
    if (this.#held.length === 0) return this.inner.executeQuery<R>(query);
    const held = CompiledQuery.raw(this.#held.join('; '));
    this.#held = [];
    // both calls reach the client before either answer is awaited: one round trip in pipeline mode
    const [before, result] = await Promise.allSettled([
      this.inner.executeQuery(held),
      this.inner.executeQuery<R>(query),
    ]);
    if (before.status === 'rejected') throw before.reason;
    if (result.status === 'rejected') throw result.reason;
    return result.value;
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
    (connection as DeferringConnection).hold('begin');
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

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection((connection as DeferringConnection).inner);
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
