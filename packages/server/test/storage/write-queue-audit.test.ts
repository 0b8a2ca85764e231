/**
 * Group commit and the audit chain, on each database: many concurrent state changes commit in fewer transactions,
 * each with its event and audit entry; the entries form a hash chain and a Merkle tree whose stored nodes agree with
 * a recomputation; a failing unit is rolled back alone; a chain that cannot be written fails the request with 503
 * and commits nothing; the database refuses UPDATE and DELETE on audit tables.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompactRange, decodeBase64, encodeBase64, leafHash, rootFromLeafHashes } from '@aar/core';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import { merchantRow } from '../support/merchant-row.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('write queue and audit chain on %s', (dialect) => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
  });
  afterEach(async () => rt?.close());

  const createPerson = (id: string) =>
    rt.app.inject({
      method: 'POST',
      url: '/v1/entities',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { type: 'person', id, display_name: id },
    });
  const count = async (table: 'entities' | 'events' | 'audit_entries') =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('commits units that arrive during a commit together, in one transaction', async () => {
    const before = rt.ctx.writer.batches;
    const units = Array.from({ length: 40 }, (_, i) =>
      rt.ctx.writer.run(async (trx) => {
        await trx
          .insertInto('merchants')
          .values(merchantRow(`m${i}`))
          .execute();
        return i;
      }),
    );
    expect(await Promise.all(units)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // the queue yields to the event loop before taking a batch: all 40, queued in one tick, commit together
    expect(rt.ctx.writer.batches - before).toBe(1);
    expect(rt.ctx.writer.units).toBeGreaterThanOrEqual(40);
  });

  it('gives every concurrent state change its event and audit entry', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => createPerson(`p${i}`)));
    expect(results.every((r) => r.statusCode === 201)).toBe(true);
    expect(await count('entities')).toBe(40);
    expect(await count('audit_entries')).toBe(await count('events'));
  });

  it('keeps a hash chain whose Merkle tree matches the stored nodes and the tip', async () => {
    await Promise.all(Array.from({ length: 13 }, (_, i) => createPerson(`q${i}`)));
    const db = rt.ctx.store.db;
    const entries = await db.selectFrom('audit_entries').selectAll().orderBy('idx').execute();
    const leaves = entries.map((e) => leafHash(new TextEncoder().encode(e.entry)));
    entries.forEach((e, i) => {
      const parsed = JSON.parse(e.entry);
      expect(parsed.index).toBe(i);
      expect(Number(e.idx)).toBe(i);
      expect(e.leaf_hash).toBe(encodeBase64(leaves[i]!));
      expect(parsed.prev_leaf_hash).toBe(i === 0 ? '' : entries[i - 1]!.leaf_hash);
      expect(parsed.record_digest).toMatch(/^sha-256:[A-Za-z0-9_-]{43}$/);
      // no personal ids in the chain: entity subjects are salted commitments
      expect(e.entry).not.toContain('ns:entity:person:');
    });
    const tip = await db.selectFrom('audit_state').selectAll().executeTakeFirstOrThrow();
    expect(Number(tip.size)).toBe(entries.length);
    const range = CompactRange.fromJSON(JSON.parse(tip.frontier));
    expect(encodeBase64(range.root())).toBe(encodeBase64(rootFromLeafHashes(leaves)));
    // every stored perfect subtree hash is the hash of its leaves
    const nodes = await db.selectFrom('audit_nodes').selectAll().execute();
    for (const n of nodes) {
      const width = 2 ** n.level;
      const begin = Number(n.idx) * width;
      expect(n.hash).toBe(encodeBase64(rootFromLeafHashes(leaves.slice(begin, begin + width))));
    }
    expect(decodeBase64(tip.last_leaf_hash)).toEqual(leaves[leaves.length - 1]);
  });

  it('rolls a failing unit back alone; the others of its batch commit', async () => {
    const results = await Promise.all([createPerson('dup'), createPerson('dup'), createPerson('other')]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 201, 409]);
    expect(await count('entities')).toBe(2);
    expect(await count('audit_entries')).toBe(await count('events'));
  });

  it('refuses UPDATE and DELETE of audit entries in the database itself', async () => {
    await createPerson('r1');
    const db = rt.ctx.store.db;
    await expect(sql`update audit_entries set kind = 'x'`.execute(db)).rejects.toThrow(/write-once/);
    await expect(sql`delete from audit_entries`.execute(db)).rejects.toThrow(/write-once/);
    await expect(sql`delete from audit_nodes`.execute(db)).rejects.toThrow(/write-once/);
    if (dialect === 'postgres') await expect(sql`truncate audit_entries`.execute(db)).rejects.toThrow(/write-once/);
    expect(await count('audit_entries')).toBeGreaterThan(0);
  });

  it('fails closed: when the chain cannot be written the request is 503 and nothing is committed', async () => {
    await createPerson('s1');
    const before = {
      entities: await count('entities'),
      events: await count('events'),
      audit: await count('audit_entries'),
    };
    const db = rt.ctx.store.db;
    // simulate a chain that cannot be written (disk, permissions): any insert into audit_entries fails
    if (dialect === 'postgres') {
      await sql`create function aar_test_fail() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`.execute(
        db,
      );
      await sql`create trigger aar_test_fail before insert on audit_entries for each row execute function aar_test_fail()`.execute(
        db,
      );
    } else {
      await sql`create trigger aar_test_fail before insert on audit_entries begin select raise(abort, 'disk full'); end`.execute(
        db,
      );
    }
    const res = await createPerson('s2');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'audit_unavailable' });
    expect({
      entities: await count('entities'),
      events: await count('events'),
      audit: await count('audit_entries'),
    }).toEqual(before);
    await sql`drop trigger aar_test_fail ${sql.raw(dialect === 'postgres' ? 'on audit_entries' : '')}`.execute(db);
    expect((await createPerson('s2')).statusCode).toBe(201);
  });
});
