/**
 * Synchronous execution of prepared statements on the embedded SQLite (prepared-query.ts). better-sqlite3 is
 * synchronous, yet every Kysely query goes through an asynchronous connection mutex and half a dozen promise hops,
 * which cost more than the small statements of authorize take to run. Here a statement runs at once, with exactly
 * what Kysely's SQLite connection would do (cached prepare, `all` or `run`, the same result shape and errors).
 *
 * INVARIANT: a statement runs directly only when nothing else can be using the connection's transaction state:
 * - inside a Kysely transaction on this store (the transaction holds the one connection until it ends), or
 * - when no one holds the connection at all (no transaction open, no query between acquire and release).
 * Running synchronously, it then completes before any other JavaScript runs, so it cannot land inside someone
 * else's transaction. Otherwise (a write batch holds the connection and this is a read from outside it) the caller
 * takes Kysely's path and waits for the connection like any query.
 */
import {
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { SqliteDatabase } from './statement-cache.ts';

const bySqliteAdapter = new WeakMap<object, DirectSqlite>();

export class DirectSqlite {
  readonly #db: SqliteDatabase;
  /** true from the moment Kysely's driver hands the connection out until it is released */
  held = false;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** Whether a statement on `db` may run synchronously now (see the invariant above). */
  canRun(db: Pick<Kysely<unknown>, 'isTransaction'>): boolean {
    return db.isTransaction ? this.held : !this.held;
  }

  /** Runs one statement as Kysely's SqliteConnection.executeQuery does; errors reject, as they do there. */
  run<Row>(sql: string, parameters: readonly unknown[]): Promise<QueryResult<Row>> {
    try {
      const statement = this.#db.prepare(sql);
      if (statement.reader) return Promise.resolve({ rows: statement.all(parameters) as Row[] });
      const { changes, lastInsertRowid } = statement.run(parameters);
      return Promise.resolve({
        numAffectedRows: BigInt(changes),
        insertId: BigInt(lastInsertRowid),
        rows: [],
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** The direct executor of the SQLite store `db` runs on, if it is one opened with `directSqliteDialect`. */
export function directSqliteOf(db: Pick<Kysely<unknown>, 'getExecutor'>): DirectSqlite | undefined {
  return bySqliteAdapter.get(db.getExecutor().adapter);
}

/** Kysely's SqliteDialect, with the connection's holder tracked for DirectSqlite. */
export function directSqliteDialect(database: SqliteDatabase): SqliteDialect {
  const direct = new DirectSqlite(database);
  return new (class extends SqliteDialect {
    override createDriver(): Driver {
      return new TrackedDriver(super.createDriver(), direct);
    }
    override createAdapter(): ReturnType<SqliteDialect['createAdapter']> {
      const adapter = super.createAdapter();
      bySqliteAdapter.set(adapter, direct);
      return adapter;
    }
  })({ database: database as ConstructorParameters<typeof SqliteDialect>[0]['database'] });
}

class TrackedDriver implements Driver {
  readonly #inner: Driver;
  readonly #direct: DirectSqlite;

  constructor(inner: Driver, direct: DirectSqlite) {
    this.#inner = inner;
    this.#direct = direct;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.#inner.acquireConnection();
    this.#direct.held = true;
    return connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#direct.held = false;
    await this.#inner.releaseConnection(connection);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
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

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}
