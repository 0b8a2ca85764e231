/**
 * The memory record check (audit/record-checks/check-memory.ts) on SQLite and PostgreSQL: memory written through the
 * real API (an agent's RFC 9421-signed writes under its grant, two erased by the principal so the tombstone chain has
 * a link), then every column of every memory table edited behind the service's back (guards dropped, as an attacker
 * with SQL access would) must be found, and so must a deleted record, content row or tombstone. `seq` is not edited:
 * storage order, outside the chain (outside-the-chain.ts).
 */
import { type Jwks } from '@aar/core';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMemory } from '../../src/audit/record-checks/check-memory.ts';
import { RecordFindings, type RecordFailure } from '../../src/audit/record-checks/record-findings.ts';
import type { Database } from '../../src/store/index.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { mintToken, startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

const dialects = await testDialects();
const ALICE = 'ns:entity:person:alice';
const AGENT = 'ns:entity:agent:shopper-1';

type Table = 'memory_records' | 'memory_contents' | 'memory_tombstones';

/** Another value of the same column: one character changed (a valid other value for a constrained column). */
function changed(column: string, value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value) + 1;
  const alternatives: Record<string, Record<string, string>> = {
    classification: { confidential: 'restricted', internal: 'public' },
    state: { erased: 'purged', purged: 'erased' },
    reason: { erased: 'retention_expired', retention_expired: 'erased' },
  };
  const text = String(value);
  const alternative = alternatives[column]?.[text];
  if (alternative) return alternative;
  const at = Math.floor(text.length / 2);
  const next = text[at] === 'a' ? 'b' : 'a';
  return `${text.slice(0, at)}${next}${text.slice(at + 1)}`;
}

describe.each(dialects)('the memory record check on %s', (dialect) => {
  let rt: OptInRuntime;
  let jwks: Jwks;
  let kept: string; // active, with content
  let erased: string; // ended first: tombstone sequence 1
  let erasedLast: string; // ended second: tombstone sequence 2, linked to the first
  const db = (): Kysely<Database> => rt.ctx.store.db;

  const check = async (): Promise<RecordFailure | undefined> => {
    const size = Number(
      (
        await db()
          .selectFrom('audit_entries')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const findings = new RecordFindings(size);
    await checkMemory(db(), findings, jwks, 2);
    return findings.first;
  };

  beforeAll(async () => {
    rt = await startOptInRuntime(['memory'], { dialect });
    const world = await buildPurchaseWorld(rt.base, ADMIN_TOKEN);
    const writer = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.write'] });
    const alice = await mintToken(rt.call, { role: 'principal', principal: ALICE, scopes: ['memory.write'] });
    const write = async (content: unknown): Promise<string> => {
      const text = JSON.stringify({
        agent_entity_id: AGENT,
        grant_id: world.grant.grant_id,
        classification: 'confidential',
        content,
      });
      const url = `${rt.base}/v1/memory/records`;
      const sig = await world.signer.sign({ method: 'POST', url, body: text });
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json', ...sig },
        body: text,
      });
      const body = (await res.json()) as { memory_record_id: string };
      expect(res.status, JSON.stringify(body)).toBe(201);
      return body.memory_record_id;
    };
    kept = await write({ note: 'delivery after 18:00', size: 'M' });
    erased = await write({ note: 'to be erased' });
    erasedLast = await write(['also', 'to be erased']);
    for (const id of [erased, erasedLast]) {
      const res = await rt.call('DELETE', `/v1/memory/records/${id}`, undefined, alice);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    jwks = (await rt.call('GET', '/.well-known/jwks.json')).body as Jwks;
  }, 120_000);
  afterAll(async () => rt?.close());

  it('passes a store written by the service, and the audit log verifies', async () => {
    expect(await check()).toBeUndefined();
    const verified = await rt.call('GET', '/v1/audit/verify');
    expect(verified.body.valid, JSON.stringify(verified.body)).toBe(true);
  });

  /** Edits `column` of the row `key` = `id` (guards dropped), runs the check, restores; returns what was found. */
  async function editAndCheck(table: Table, key: string, id: string, column: string) {
    const row = (
      await sql<Record<string, unknown>>`select * from ${sql.table(table)} where ${sql.ref(key)} = ${id}`.execute(db())
    ).rows[0]!;
    const original = row[column];
    expect(original, `${table}.${column} of ${id}`).not.toBeNull();
    const value = changed(column, original);
    const keyAfter = column === key ? value : id;
    await bypassingGuards(db(), dialect, async (d) => {
      await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${value as never} where ${sql.ref(key)} = ${id}`.execute(
        d,
      );
    });
    try {
      return await check();
    } finally {
      await bypassingGuards(db(), dialect, async (d) => {
        await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${original as never}
          where ${sql.ref(key)} = ${keyAfter as never}`.execute(d);
      });
      expect(await check()).toBeUndefined();
    }
  }

  const recordColumns = [
    'memory_record_id',
    'principal_entity_id',
    'agent_entity_id',
    'grant_id',
    'classification',
    'record',
    'record_digest',
    'content_digest',
    'retain_until',
    'created_at',
  ];
  const tombstoneColumns = [
    'tombstone_id',
    'memory_record_id',
    'principal_entity_id',
    'sequence',
    'previous_tombstone_digest',
    'reason',
    'tombstone',
    'tombstone_digest',
    'created_at',
  ];

  it.each(recordColumns)('finds an edited memory_records.%s (active record)', async (column) => {
    const found = await editAndCheck('memory_records', 'memory_record_id', kept, column);
    expect(found, column).toMatchObject({ index: expect.any(Number) });
    // a restated column is named; the id edit orphans the content row; the document and digest fail their digest
    if (!['memory_record_id', 'record', 'record_digest'].includes(column)) expect(found?.detail).toBe(column);
    if (column === 'record' || column === 'record_digest') expect(found?.reason).toBe('record_digest_mismatch');
  });

  it.each([...recordColumns, 'state', 'tombstone_id'])(
    'finds an edited memory_records.%s (erased record)',
    async (column) => {
      const found = await editAndCheck('memory_records', 'memory_record_id', erasedLast, column);
      expect(found, column).toMatchObject({ index: expect.any(Number) });
    },
  );

  it.each(['memory_record_id', 'content', 'salt'])('finds an edited memory_contents.%s', async (column) => {
    const found = await editAndCheck('memory_contents', 'memory_record_id', kept, column);
    expect(found, column).toMatchObject({
      record: { table: column === 'memory_record_id' ? expect.any(String) : 'memory_contents' },
    });
  });

  it.each(tombstoneColumns)('finds an edited memory_tombstones.%s (the second of the chain)', async (column) => {
    const found = await editAndCheck('memory_tombstones', 'memory_record_id', erasedLast, column);
    expect(found, column).toMatchObject({ index: expect.any(Number), record: { table: 'memory_tombstones' } });
    if (!['memory_record_id', 'tombstone'].includes(column)) expect(found?.detail).toBe(column);
  });

  it('finds content restored to an erased record, and content re-encoded as other bytes of the same JSON', async () => {
    const content = (
      await db()
        .selectFrom('memory_contents')
        .selectAll()
        .where('memory_record_id', '=', kept)
        .executeTakeFirstOrThrow()
    ).content;
    await bypassingGuards(db(), dialect, async (d) => {
      await d.insertInto('memory_contents').values({ memory_record_id: erased, content, salt: 'x' }).execute();
    });
    expect(await check()).toMatchObject({
      reason: 'record_mismatch',
      record: { table: 'memory_contents', id: erased },
    });
    await db().deleteFrom('memory_contents').where('memory_record_id', '=', erased).execute();
    await db()
      .updateTable('memory_contents')
      .set({ content: ` ${content}` })
      .where('memory_record_id', '=', kept)
      .execute();
    expect(await check()).toMatchObject({ reason: 'record_digest_mismatch', detail: 'content' });
    await db().updateTable('memory_contents').set({ content }).where('memory_record_id', '=', kept).execute();
    expect(await check()).toBeUndefined();
  });

  it.each([
    ['memory_records', erasedLastRef, 'memory_records'],
    ['memory_tombstones', erasedLastRef, 'memory_tombstones'],
    ['memory_contents', keptRef, 'memory_records'],
  ] as const)('finds a deleted %s row', async (table, which, reported) => {
    const id = which();
    const rows = (
      await sql<Record<string, unknown>>`select * from ${sql.table(table)} where memory_record_id = ${id}`.execute(db())
    ).rows;
    expect(rows).toHaveLength(1);
    const { seq: _seq, ...row } = rows[0]!;
    await bypassingGuards(db(), dialect, async (d) => {
      await sql`delete from ${sql.table(table)} where memory_record_id = ${id}`.execute(d);
    });
    try {
      expect(await check()).toMatchObject({ record: { table: reported } });
    } finally {
      await bypassingGuards(db(), dialect, async (d) => {
        await d
          .insertInto(table)
          .values(row as never)
          .execute();
      });
    }
    expect(await check()).toBeUndefined();
  });

  function erasedLastRef(): string {
    return erasedLast;
  }
  function keptRef(): string {
    return kept;
  }
});
