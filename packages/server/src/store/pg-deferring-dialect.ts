/**
 * PostgreSQL: statements whose results nobody reads (`begin`, a write unit's savepoint, a batch's last write) travel
 * with the next statement instead of costing a round trip of their own. Kysely's PostgresDriver does the rest
 * (commit, rollback, savepoints) through our connections.
 *
 * A query marked with `deferredStatement()` or `deferred()` returns at once, empty, and is held on its connection;
 * the next query on that connection sends what is held first and then its own, without waiting in between: the
 * pool's clients run in node-postgres' pipeline mode, so they go out together and their answers come back in order.
 * `begin` is held the same way. A write batch's `begin`, its first unit's savepoint and that unit's first statement
 * thus take one round trip, where they took three; each later unit's release and savepoint ride on its first
 * statement too, and the batch's audit write (entries, nodes, tip) rides on its COMMIT. The socket is corked while
 * they are handed to the client, so they also leave in one write: each write to PostgreSQL over loopback wakes its
 * backend, a cost the sending thread pays.
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
 *   cursors and `rows` (portal) queries, which this service does not use (streamQuery throws, as Kysely's does
 *   without a cursor configured).
 * - Results are shaped as Kysely's own PostgresConnection shapes them (rows; numAffectedRows for INSERT, UPDATE,
 *   DELETE and MERGE), which this file replaces only to reach the client's socket.
 */
import {
  CompiledQuery,
  PostgresDialect,
  PostgresDriver,
  type DatabaseConnection,
  type Driver,
  type PostgresDialectConfig,
  type PostgresPool,
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

/** the part of a node-postgres pool client this file uses; `connection.stream` is its socket */
interface PipelinedClient {
  query(sql: string, parameters: unknown[]): Promise<{ command: string; rowCount: number | null; rows: unknown[] }>;
  release(): void;
  connection?: { stream?: { cork?: () => void; uncork?: () => void } };
}

const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class DeferringConnection implements DatabaseConnection {
  readonly client: PipelinedClient;
  #held: CompiledQuery[] = [];

  constructor(client: PipelinedClient) {
    this.client = client;
  }

  hold(query: CompiledQuery): void {
    this.#held.push(query);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (DEFERRED.has(query)) {
      this.hold(query);
      return EMPTY;
    }
    if (this.#held.length === 0) return this.#run<R>(query);
    const messages = messagesOf(this.#held);
    this.#held = [];
    // every query reaches the client before any answer is awaited (one round trip in pipeline mode), and the socket
    // is corked meanwhile (one write; node-postgres' own cork around an extended query nests inside ours)
    const stream = this.client.connection?.stream;
    stream?.cork?.();
    let pending: Array<Promise<QueryResult<unknown>>>;
    try {
      pending = [...messages.map((message) => this.#run(message)), this.#run<R>(query)];
    } finally {
      stream?.uncork?.();
    }
    const settled = await Promise.allSettled(pending);
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
    return (settled[settled.length - 1] as PromiseFulfilledResult<QueryResult<R>>).value;
  }

  /** Hands `query` to the client at once (before the first await) and shapes its result as Kysely does. */
  #run<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.client.query(query.sql, [...query.parameters]).then(({ command, rowCount, rows }) => ({
      numAffectedRows: AFFECTING.has(command) ? BigInt(rowCount ?? 0) : undefined,
      rows: (rows ?? []) as R[],
    }));
  }

  /** Sends what is held, if anything, on its own (a connection going back to the pool). */
  async flush(): Promise<void> {
    if (this.#held.length > 0) await this.executeQuery(CompiledQuery.raw('select 1'));
  }

  /** never streams: pipeline mode refuses cursors */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on a pipelined PostgreSQL connection');
  }
}

/**
 * Kysely's PostgresDriver with our connections: acquired from the pool directly (Kysely's own connection hides its
 * client, whose socket we cork), `begin` held; commit, rollback and savepoints are Kysely's, run on our connection.
 */
class DeferringDriver extends PostgresDriver {
  readonly #config: PostgresDialectConfig;
  #pool: PostgresPool | undefined;
  readonly #connections = new WeakMap<object, DeferringConnection>();

  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }

  override async init(): Promise<void> {
    this.#pool = typeof this.#config.pool === 'function' ? await this.#config.pool() : this.#config.pool;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const pool = this.#pool;
    if (!pool) throw new Error('driver has already been destroyed');
    const client = (await pool.connect()) as unknown as PipelinedClient;
    if (!this.#pool) {
      // destroyed while the connection was being acquired
      client.release();
      throw new Error('driver has already been destroyed');
    }
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new DeferringConnection(client);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) return super.beginTransaction(connection, settings);
    (connection as DeferringConnection).hold(BEGIN);
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const deferring = connection as DeferringConnection;
    try {
      await deferring.flush();
    } finally {
      deferring.client.release();
    }
  }

  override async destroy(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.end();
  }
}

/** PostgresDialect whose driver holds deferred statements (and `begin`) for the next query on the connection. */
export class DeferringPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;

  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new DeferringDriver(this.#config);
  }
}
