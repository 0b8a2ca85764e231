/**
 * Prepared statements (store/prepared-query.ts) and their synchronous path on SQLite (store/direct-sqlite.ts), on
 * each database: the rows and counts the Kysely builder gives, values bound only in their own positions, and the
 * isolation of write batches: a read from outside a transaction never sees the transaction's uncommitted rows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateStore, openStore, type Store } from '../../src/store/index.ts';
import { prepareListQuery, prepareQuery } from '../../src/store/prepared-query.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';

const dialects = await testDialects();
const T = '2026-11-20T00:00:00.000Z';

const ENTITY = prepareQuery(['id'], (db, args: { id: string }) =>
  db.selectFrom('entities').select(['entity_id', 'type', 'state']).where('entity_id', '=', args.id),
);
const ENTITIES_OF_TYPE = prepareListQuery(['type'], undefined, (db, args: { type: 'person' }, ids: string[]) =>
  db.selectFrom('entities').select('entity_id').where('type', '=', args.type).where('entity_id', 'in', ids),
);
const INSERT_NONCE = prepareQuery(['keyid', 'nonce'], (db, args: { keyid: string; nonce: string }) =>
  db
    .insertInto('request_nonces')
    .values({ ...args, created: 1, expires_at: T })
    .onConflict((oc) => oc.columns(['keyid', 'nonce']).doNothing()),
);
const INSERT_NODES = prepareListQuery(
  [],
  ['level', 'idx', 'hash'],
  (db, _args, rows: Array<{ level: number; idx: number; hash: string }>) => db.insertInto('audit_nodes').values(rows),
);

describe.each(dialects)('prepared queries on %s', (dialect) => {
  let store: Store;
  let drop: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    if (dialect === 'postgres') {
      const schema = await freshPgSchema();
      drop = schema.drop;
      store = openStore({ databaseUrl: schema.url });
    } else {
      store = openStore({});
    }
    await migrateStore(store);
    await store.db
      .insertInto('entities')
      .values([person('a'), person('b'), person('c')])
      .execute();
  });
  afterEach(async () => {
    await store.close();
    await drop?.();
  });

  function person(id: string) {
    return {
      entity_id: `ns:entity:person:${id}`,
      type: 'person' as const,
      display_name: id,
      public_key_jwk: null,
      key_thumbprint: null,
      state: 'active' as const,
      created_at: T,
      updated_at: T,
    };
  }

  it('reads the rows the builder reads', async () => {
    const id = 'ns:entity:person:b';
    const built = await store.db
      .selectFrom('entities')
      .select(['entity_id', 'type', 'state'])
      .where('entity_id', '=', id)
      .execute();
    expect((await ENTITY.execute(store.db, { id })).rows).toEqual(built);
    expect((await ENTITY.execute(store.db, { id: 'ns:entity:person:zz' })).rows).toEqual([]);
  });

  it('binds a value only as a value, wherever it came from', async () => {
    // PostgreSQL refuses NUL in text, so the placeholder's own spelling is tried on SQLite only
    const placeholder = dialect === 'sqlite' ? ['\u0000aar-placeholder:id'] : [];
    for (const id of ["ns:entity:person:a' or '1'='1", ...placeholder, '?', '$1']) {
      expect((await ENTITY.execute(store.db, { id })).rows).toEqual([]);
    }
  });

  it('counts inserted rows, and none when a conflict is ignored', async () => {
    const first = await INSERT_NONCE.execute(store.db, { keyid: 'k', nonce: 'n' });
    const again = await INSERT_NONCE.execute(store.db, { keyid: 'k', nonce: 'n' });
    expect(first.numAffectedRows).toBe(1n);
    expect(again.numAffectedRows).toBe(0n);
  });

  it('prepares one statement per list length, for lists of values and of rows', async () => {
    const ids = (n: string[]) => n.map((x) => `ns:entity:person:${x}`);
    const found = async (list: string[]) =>
      (await ENTITIES_OF_TYPE.execute(store.db, { type: 'person' }, list)).rows.map((r) => r.entity_id).sort();
    expect(await found(ids(['a']))).toEqual(ids(['a']));
    expect(await found(ids(['c', 'a', 'x']))).toEqual(ids(['a', 'c']));
    expect(await found(ids(['b', 'c']))).toEqual(ids(['b', 'c']));

    const rows = [
      { level: 0, idx: 0, hash: 'h0' },
      { level: 0, idx: 1, hash: 'h1' },
      { level: 1, idx: 0, hash: 'h01' },
    ];
    await INSERT_NODES.execute(store.db, {}, rows.slice(0, 1));
    await INSERT_NODES.execute(store.db, {}, rows.slice(1));
    const stored = await store.db.selectFrom('audit_nodes').selectAll().orderBy('level').orderBy('idx').execute();
    expect(stored.map((r) => ({ level: Number(r.level), idx: Number(r.idx), hash: r.hash }))).toEqual(rows);
  });

  it('refuses a statement that does not bind each of its arguments exactly once', () => {
    const unbound = prepareQuery(['id', 'other'], (db, args: { id: string; other: string }) =>
      db.selectFrom('entities').select('entity_id').where('entity_id', '=', args.id),
    );
    const twice = prepareQuery(['id'], (db, args: { id: string }) =>
      db
        .selectFrom('entities')
        .select('entity_id')
        .where('entity_id', '=', args.id)
        .where('display_name', '=', args.id),
    );
    expect(() => unbound.execute(store.db, { id: 'x', other: 'y' })).toThrow();
    expect(() => twice.execute(store.db, { id: 'x' })).toThrow();
  });

  it('sees its own transaction’s writes inside it', async () => {
    const seen = await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('entities').values(person('inside')).execute();
      return (await ENTITY.execute(trx, { id: 'ns:entity:person:inside' })).rows.length;
    });
    expect(seen).toBe(1);
  });

  it('never shows a read from outside an open transaction the rows it then rolls back', async () => {
    const id = 'ns:entity:person:ghost';
    let reading: Promise<{ rows: unknown[] }> | undefined;
    const transaction = store.db.transaction().execute(async (trx) => {
      await trx.insertInto('entities').values(person('ghost')).execute();
      // the transaction stays open across a turn of the event loop, as a write batch may; a read starts meanwhile
      await new Promise((resolve) => setImmediate(resolve));
      reading = ENTITY.execute(store.db, { id });
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('roll back');
    });
    await expect(transaction).rejects.toThrow('roll back');
    expect((await reading!).rows).toEqual([]);
    expect((await ENTITY.execute(store.db, { id })).rows).toEqual([]);
  });
});
