/**
 * The storage contract: what every adapter must guarantee, run against each database (STYLE habit 6).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listEvents } from '../../src/services/events/list-events.ts';
import { sweepExpired } from '../../src/services/maintenance/sweep-expired.ts';
import { isUniqueViolation } from '../../src/services/unique-violation.ts';
import { migrateStore, openStore, type Store } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import type { AppContext } from '../../src/app-context.ts';

const dialects = await testDialects();
const T = '2026-11-20T00:00:00.000Z';

describe.each(dialects)('store contract on %s', (dialect) => {
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
  });
  afterEach(async () => {
    await store.close();
    await drop?.();
  });

  const person = (id: string) => ({
    entity_id: `ns:entity:person:${id}`,
    type: 'person' as const,
    display_name: id,
    public_key_jwk: null,
    key_thumbprint: null,
    state: 'active' as const,
    created_at: T,
    updated_at: T,
  });
  const event = (n: number) => ({
    event_id: `ns:event:${n}`,
    event_type: 't',
    occurred_at: T,
    subject_ref: 's',
    envelope: JSON.stringify({ n }),
  });

  it('applies the migration set once; a second run has nothing to do', async () => {
    expect(await migrateStore(store)).toEqual([]);
  });

  it('reports unique violations the same way on every dialect', async () => {
    await store.db.insertInto('entities').values(person('a')).execute();
    const error = await store.db
      .insertInto('entities')
      .values(person('a'))
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it('enforces foreign keys and check constraints', async () => {
    const orphan = store.db
      .insertInto('card_tokens')
      .values({
        card_token_id: 'ns:card_token:x',
        principal_entity_id: 'ns:entity:person:nobody',
        network_token: 'n',
        network: null,
        last4: null,
        expires: null,
        state: 'active',
        created_at: T,
        updated_at: T,
      })
      .execute();
    await expect(orphan).rejects.toThrow();
    await expect(
      store.db
        .insertInto('entities')
        .values({ ...person('b'), state: 'sleeping' as 'active' })
        .execute(),
    ).rejects.toThrow();
    await expect(
      store.db
        .insertInto('api_tokens')
        .values({
          token_id: 't',
          token_hash: 'h',
          role: 'principal',
          principal_entity_id: null,
          label: null,
          created_at: T,
          revoked_at: null,
        })
        .execute(),
    ).rejects.toThrow();
  });

  it('rolls back every write of a failed transaction', async () => {
    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx.insertInto('entities').values(person('c')).execute();
        await trx.insertInto('events').values(event(1)).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.db.selectFrom('entities').selectAll().execute()).toEqual([]);
    expect(await store.db.selectFrom('events').selectAll().execute()).toEqual([]);
  });

  it('gives increasing seq numbers in insertion order', async () => {
    for (const id of ['p1', 'p2', 'p3']) await store.db.insertInto('entities').values(person(id)).execute();
    const rows = await store.db.selectFrom('entities').select(['seq', 'entity_id']).orderBy('seq').execute();
    expect(rows.map((r) => r.entity_id)).toEqual(['ns:entity:person:p1', 'ns:entity:person:p2', 'ns:entity:person:p3']);
    expect(typeof rows[0]!.seq).toBe('number');
    expect(rows[0]!.seq).toBeLessThan(rows[1]!.seq);
  });

  it('sweeps expired nonces and keeps live ones', async () => {
    await store.db
      .insertInto('request_nonces')
      .values([
        { keyid: 'k', nonce: 'old', created: 1, expires_at: '2026-11-19T00:00:00.000Z' },
        { keyid: 'k', nonce: 'live', created: 2, expires_at: '2026-11-21T00:00:00.000Z' },
      ])
      .execute();
    const ctx = { store, clock: { now: () => new Date(T) } } as unknown as AppContext;
    expect(await sweepExpired(ctx)).toEqual({ nonces: 1 });
    expect((await store.db.selectFrom('request_nonces').select('nonce').execute()).map((r) => r.nonce)).toEqual([
      'live',
    ]);
  });

  it('never shows a pull consumer an event past one that has not committed yet', async () => {
    // listEvents signs what it returns: a stand-in key suffices here
    const keys = { current: () => ({ keyId: 'ns:key:test', sign: async () => new Uint8Array(64) }) };
    const ctx = { store, keys } as unknown as AppContext;
    const page = { limit: 100, afterSeq: 0 };
    const ns = async () => (await listEvents(ctx, page)).items.map((e) => (e as unknown as { n: number }).n);
    if (dialect === 'sqlite') {
      // one writer: commit order is seq order, nothing to hide
      await store.db.insertInto('events').values(event(1)).execute();
      expect(await ns()).toEqual([1]);
      return;
    }
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const slowInserted = new Promise<void>((r) => (inserted = r));
    const slow = store.db.transaction().execute(async (trx) => {
      await trx.insertInto('events').values(event(1)).execute(); // takes the lower seq
      inserted();
      await held;
    });
    await slowInserted;
    await store.db.insertInto('events').values(event(2)).execute(); // commits first with the higher seq
    expect(await ns()).toEqual([]);
    release();
    await slow;
    expect(await ns()).toEqual([1, 2]);
  });
});
