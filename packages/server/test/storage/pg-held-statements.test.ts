/**
 * PostgreSQL: statements nobody reads the result of (`begin`, a write unit's savepoint, a batch's audit write) ride
 * on the next query (store/pg-deferring-dialect.ts), in the same socket write, counted in round trips by a proxy
 * that reads the protocol's frames. A held statement that fails still fails its transaction, and a connection goes
 * back to the pool with nothing held.
 */
import { randomUUID } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { migrateStore, openStore, type Database, type Store } from '../../src/store/index.ts';
import { DeferringPostgresDialect, deferred, deferredStatement } from '../../src/store/pg-deferring-dialect.ts';
import { WriteQueue, auditOf } from '../../src/store/write-queue.ts';
import { testDialects } from '../support/dialects.ts';
import { merchantRow } from '../support/merchant-row.ts';
import { startRoundTripCounter, type RoundTripCounter } from '../support/pg-round-trip-counter.ts';
import { freshPgSchema } from '../support/pg-schema.ts';

const onPostgres = (await testDialects()).includes('postgres');

describe.runIf(onPostgres)('held statements on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshPgSchema>>;
  let proxy: RoundTripCounter;
  let db: Kysely<{ t: { x: number } }>;
  let pool: pg.Pool;

  beforeAll(async () => {
    schema = await freshPgSchema();
    proxy = await startRoundTripCounter(schema.url);
    pool = new pg.Pool({ connectionString: proxy.url, max: 1, pipeline: true });
    db = new Kysely({ dialect: new DeferringPostgresDialect({ pool }) });
    await sql`create table t (x int primary key)`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await proxy?.close();
    await schema?.drop();
  });

  it("sends a transaction's begin and a held savepoint with its first query: one round trip, its rows intact", async () => {
    proxy.reset();
    const rows = await db.transaction().execute(async (trx) => {
      expect((await trx.executeQuery(deferredStatement('savepoint held_one'))).rows).toEqual([]);
      const sum = await sql<{ n: number }>`select ${41}::int + 1 as n`.execute(trx);
      // the savepoint exists: it went out before the select
      await sql`rollback to savepoint held_one`.execute(trx);
      return sum.rows;
    });
    expect(rows).toEqual([{ n: 42 }]);
    // select (carrying begin and the savepoint), rollback to, commit; Kysely alone takes 5
    expect(proxy.roundTrips()).toBe(3);
  });

  it('writes the held statements and their carrier to the socket at once', async () => {
    // the pool's one client, borrowed between transactions to count the writes on its socket
    const client = await pool.connect();
    const stream = (client as unknown as { connection: { stream: Record<string, unknown> } }).connection.stream;
    client.release();
    let writes = 0;
    const counted = ['_write', '_writev'].map((name) => {
      const original = stream[name] as (...args: unknown[]) => unknown;
      stream[name] = function (this: unknown, ...args: unknown[]) {
        writes += 1;
        return original.apply(this, args);
      };
      return () => {
        stream[name] = original;
      };
    });
    try {
      await db.transaction().execute(async (trx) => {
        await trx.executeQuery(deferredStatement('savepoint held_three'));
        // an extended-protocol query (a bound value): five messages, with the held begin and savepoint one write
        await sql`select ${7}::int as n`.execute(trx);
      });
    } finally {
      for (const restore of counted) restore();
    }
    // the select with what it carries, then the commit
    expect(writes).toBe(2);
  });

  it('fails the carrying query with the held statement’s error, commits nothing and leaves no transaction open', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(deferredStatement('release savepoint never_made'));
        await sql`insert into t (x) values (1)`.execute(trx);
      }),
    ).rejects.toThrow(/never_made/);
    expect((await sql<{ n: string }>`select count(*) as n from t`.execute(db)).rows[0]!.n).toBe('0');
    // the pool's only connection is outside any transaction: a savepoint there is refused
    await expect(sql`savepoint outside`.execute(db)).rejects.toThrow(/transaction block/);
  });

  it('flushes what is held at a rollback when the transaction ran no query', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(deferredStatement('savepoint held_two'));
        throw new Error('unit gave up');
      }),
    ).rejects.toThrow('unit gave up');
    await expect(sql`savepoint outside`.execute(db)).rejects.toThrow(/transaction block/);
    await sql`insert into t (x) values (2)`.execute(db);
    expect((await sql<{ x: number }>`select x from t`.execute(db)).rows).toEqual([{ x: 2 }]);
  });

  it('sends a held statement outside a transaction before its connection goes back to the pool', async () => {
    const insert = deferred(sql`insert into t (x) values (${3})`.compile(db));
    expect((await db.executeQuery(insert)).rows).toEqual([]);
    expect((await sql<{ x: number }>`select x from t where x = 3`.execute(db)).rows).toEqual([{ x: 3 }]);
    // and its failure reaches the caller
    await expect(db.executeQuery(deferred(sql`insert into t (x) values (${3})`.compile(db)))).rejects.toThrow(
      /duplicate key/,
    );
  });

  describe('a write batch', () => {
    let store: Store;
    let queue: WriteQueue;
    beforeAll(async () => {
      store = openStore({ databaseUrl: proxy.url, poolSize: 2 });
      await migrateStore(store);
      queue = new WriteQueue(store, systemClock, randomUUID);
    });
    afterAll(async () => store?.close());

    const insertMerchant = (id: string) => async (trx: Parameters<Parameters<WriteQueue['run']>[0]>[0]) => {
      await (trx as unknown as Kysely<Database>).insertInto('merchants').values(merchantRow(id)).execute();
      return id;
    };

    it('costs one round trip per unit: its savepoint and the batch’s begin ride on its statement', async () => {
      proxy.reset();
      const batches = queue.batches;
      const ids = await Promise.all(['m1', 'm2', 'm3'].map((id) => queue.run(insertMerchant(id))));
      expect(ids).toEqual(['m1', 'm2', 'm3']);
      expect(queue.batches - batches).toBe(1);
      // m1 (with begin and its savepoint), m2 and m3 (each with the release and its savepoint), the audit tip's read,
      // the commit (carrying the tip's update); before the held statements, nine: begin, the two savepoints and the
      // tip's update went alone
      expect(proxy.roundTrips()).toBe(5);
      const stored = await store.db.selectFrom('merchants').select('merchant_id').orderBy('merchant_id').execute();
      expect(stored.map((row) => row.merchant_id)).toEqual(['m1', 'm2', 'm3']);
    });

    const withEntry =
      (id: string, auditId?: string) => async (trx: Parameters<Parameters<WriteQueue['run']>[0]>[0]) => {
        await insertMerchant(id)(trx);
        await auditOf(trx).append({
          kind: 'merchant.created',
          subject_ref: `merchant:${id}`,
          occurred_at: new Date().toISOString(),
          record: { merchant_id: id },
          ...(auditId ? { audit_id: auditId } : {}),
        });
        return id;
      };
    const auditSize = async () =>
      Number((await store.db.selectFrom('audit_state').select('size').executeTakeFirstOrThrow()).size);

    it('sends the batch’s audit entries, their nodes and the tip with its commit', async () => {
      const before = await auditSize();
      proxy.reset();
      await Promise.all(['a1', 'a2'].map((id) => queue.run(withEntry(id))));
      // a1, a2, the tip's read (locking it), the commit carrying the one statement that writes entries, nodes, tip
      expect(proxy.roundTrips()).toBe(4);
      expect(await auditSize()).toBe(before + 2);
      const entries = await store.db
        .selectFrom('audit_entries')
        .select(['idx', 'subject_ref'])
        .where('idx', '>=', before)
        .orderBy('idx')
        .execute();
      expect(entries.map((e) => [Number(e.idx), e.subject_ref])).toEqual([
        [before, 'merchant:a1'],
        [before + 1, 'merchant:a2'],
      ]);
    });

    it('fails the whole batch, committing nothing, when the audit write held for the commit fails', async () => {
      const taken = randomUUID();
      await queue.run(withEntry('b1', taken));
      const before = await auditSize();
      // b2's entry reuses b1's audit_id: only the held batch-end insert, at the commit, can find out
      const results = await Promise.allSettled([queue.run(withEntry('b2', taken)), queue.run(withEntry('b3'))]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'audit_unavailable' });
      expect(await auditSize()).toBe(before);
      const stored = await store.db
        .selectFrom('merchants')
        .select('merchant_id')
        .where('merchant_id', 'in', ['b2', 'b3'])
        .execute();
      expect(stored).toEqual([]);
      // the connection went back clean: the next batch commits
      await queue.run(withEntry('b4'));
      expect(await auditSize()).toBe(before + 1);
    });

    it('still rolls back a failing unit alone', async () => {
      const results = await Promise.allSettled([
        queue.run(insertMerchant('m4')),
        queue.run(insertMerchant('m1')), // already there: the unique constraint refuses it
        queue.run(insertMerchant('m5')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const stored = await store.db
        .selectFrom('merchants')
        .select('merchant_id')
        .where('merchant_id', 'like', 'm%')
        .orderBy('merchant_id')
        .execute();
      expect(stored.map((row) => row.merchant_id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    });
  });
});
