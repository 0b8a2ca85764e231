/**
 * The revocation cascade's writes (write-revocation-cascade.ts) on both databases: all or nothing, the audit chain
 * valid afterwards (its record commits to the events in order), and on SQLite the write-once insert guards, lifted
 * around the cascade's own inserts, standing again, verbatim, whether the cascade committed or failed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countLines,
  inEventOrder,
  linesFromEvents,
  writeRevocationCascade,
} from '../../src/services/grants/write-revocation-cascade.ts';
import { testDialects } from '../support/dialects.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { insertGrantTree } from '../support/grant-tree.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const TREE = 60;
/** the operation UUID of the failing cascade: its event ids are `ns:event:` + its first 28 characters + a counter */
const UUID = '0196aaaa-bbbb-7ccc-8ddd-eeee00000000';
const EVENT_2 = `ns:event:${UUID.slice(0, 28)}00000002`;
const AUDIT_REF = 'ns:audit:0196aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';

interface World {
  rt: TestRuntime;
  w: DelegationWorld;
  middle: string;
  /** the grants inserted beside the API */
  fillers: string[];
}

/** root -> middle -> leaf through the API, and TREE - 1 filler grants under the root */
async function world(dialect: 'sqlite' | 'postgres'): Promise<World> {
  const rt = await startTestRuntime({ dialect });
  const w = await buildDelegationWorld(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
  const middle = (await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {})).body.grant_id;
  const leaf = (await w.delegate(middle, 'planner', 'ns:entity:agent:shopper-1', {})).body.grant_id;
  const template = (await w.call('GET', `/v1/grants/${leaf}`)).body.link;
  const fillers = await insertGrantTree(rt.ctx, { root: w.root, size: TREE, template: JSON.stringify(template) });
  return { rt, w, middle, fillers };
}

for (const dialect of await testDialects()) {
  describe(`revocation cascade writes (${dialect})`, () => {
    // the failing cascade leaves a stray event behind (events are write-once): it gets a store of its own
    let failing: World;
    let rt: TestRuntime;
    let w: DelegationWorld;
    let middle: string;
    let fillers: string[];

    /** the triggers of the two tables the cascade writes (SQLite; PostgreSQL has no insert guards) */
    const guards = async (on: TestRuntime) =>
      dialect === 'sqlite'
        ? (
            await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
              where type = 'trigger' and tbl_name in ('events', 'grant_revocations') order by name`.execute(
              on.ctx.store.db,
            )
          ).rows
        : [];
    const count = async (on: TestRuntime, table: string, where = sql`1 = 1`) =>
      Number(
        (
          await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(
            on.ctx.store.db,
          )
        ).rows[0]!.n,
      );

    beforeAll(async () => {
      failing = await world(dialect);
      ({ rt, w, middle, fillers } = await world(dialect));
    }, 60_000);
    afterAll(async () => {
      await failing?.rt.close();
      await rt?.close();
    });

    it('a cascade that fails half way writes nothing and leaves the guards as they were', async () => {
      const on = failing.rt;
      const before = await guards(on);
      expect(dialect === 'postgres' || before.length >= 2).toBe(true);
      // an event already holding the id the cascade mints for its second grant: its events insert fails
      await sql`insert into events (event_id, event_type, occurred_at, subject_ref, envelope)
        values (${EVENT_2}, 'ns.merchant.created', ${new Date().toISOString()}, 'x', '{}')`.execute(on.ctx.store.db);
      const revocations = await count(on, 'grant_revocations');
      const events = await count(on, 'events');
      const failed = on.ctx.writer.run((trx) =>
        writeRevocationCascade(
          trx,
          { ...on.ctx, newUuid: () => UUID },
          {
            root: failing.w.root.grant_id,
            now: new Date().toISOString(),
            audit_ref: AUDIT_REF,
            reason_code: 'admin_revoked_authority',
            actor_entity_id: null,
          },
        ),
      );
      await expect(failed).rejects.toThrow();
      expect(await count(on, 'grant_revocations')).toBe(revocations);
      expect(await count(on, 'events')).toBe(events);
      expect(await count(on, 'event_operations', sql`operation_ref = ${AUDIT_REF}`)).toBe(0);
      expect(await guards(on)).toEqual(before);
      expect((await failing.w.authorize('shopper-1', failing.w.purchase('shopper-1', 10))).body.decision).toBe(
        'allow_with_constraints',
      );
    });

    it('a subtree cascade, then the whole tree: one event per grant, in order, the audit chain valid', async () => {
      const before = await guards(rt);
      const sub = await w.call('POST', `/v1/grants/${middle}/revoke`);
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body.revoked_count).toBe(2); // the middle link and the leaf below it
      const whole = await w.call('POST', `/v1/grants/${w.root.grant_id}/revoke`);
      expect(whole.status, JSON.stringify(whole.body)).toBe(200);
      // the root, and the filler tree below it; the middle and leaf were revoked already
      expect(whole.body.revoked_count).toBe(TREE);
      for (const op of [sub.body.audit_ref, whole.body.audit_ref] as string[]) {
        const rows = await rt.ctx.store.db
          .selectFrom('events')
          .select(['event_id', 'subject_ref'])
          .where('operation_ref', '=', op)
          .orderBy('seq')
          .execute();
        const revoked = await rt.ctx.store.db
          .selectFrom('grant_revocations')
          .select('grant_id')
          .where('operation_ref', '=', op)
          .execute();
        expect(rows.map((r) => r.subject_ref).sort()).toEqual(revoked.map((r) => r.grant_id).sort());
        // event order is id order (the counter), and the subjects follow grant id order
        expect(rows.map((r) => r.event_id)).toEqual(rows.map((r) => r.event_id).sort());
        expect(rows.map((r) => r.subject_ref)).toEqual(rows.map((r) => r.subject_ref).sort());
        // the cascade's fallback digest lines (events read back in id order) are the lines of these events
        expect(await linesFromEvents(rt.ctx.store.db, { audit_ref: op })).toBe(
          rows.map((r) => `${r.event_id} ${r.subject_ref}\n`).join(''),
        );
      }
      expect((await w.authorize('shopper-1', w.purchase('shopper-1', 10))).body).toMatchObject({
        decision: 'deny',
        reason: 'authority_revoked',
      });
      // the chain and every record the API wrote hold; the filler tree was inserted beside the API (no creation
      // event, links that no longer verify), which verify rightly names, and only that: a finding without an entry
      // index ranks after every indexed one, and the grants are checked after the records the cascade wrote
      const verify = await w.call('GET', '/v1/audit/verify');
      expect(verify.body, JSON.stringify(verify.body)).toMatchObject({
        valid: false,
        checked: verify.body.size,
        failure: 'record_unanchored',
        record: { table: 'grants' },
        detail: 'grant_id',
      });
      expect(fillers).toContain(verify.body.record.id);
      expect(await guards(rt)).toEqual(before);
    });

    it.runIf(dialect === 'sqlite')('after a cascade the insert guards still refuse a REPLACE', async () => {
      const [revoked] = await rt.ctx.store.db.selectFrom('grant_revocations').selectAll().limit(1).execute();
      await expect(
        sql`insert or replace into grant_revocations (grant_id, revoked_at, operation_ref, cascade_root)
          values (${revoked!.grant_id}, ${revoked!.revoked_at}, 'ns:audit:forged', ${revoked!.cascade_root})`.execute(
          rt.ctx.store.db,
        ),
      ).rejects.toThrow(/write-once/);
      const [event] = await rt.ctx.store.db.selectFrom('events').selectAll().limit(1).execute();
      await expect(
        sql`replace into events (event_id, event_type, occurred_at, subject_ref, envelope)
          values (${event!.event_id}, ${event!.event_type}, ${event!.occurred_at}, 'forged', '{}')`.execute(
          rt.ctx.store.db,
        ),
      ).rejects.toThrow(/write-once/);
    });
  });
}

describe('the digest lines order check', () => {
  const prefix = 'ns:event:0196aaaa-bbbb-7ccc-8ddd-eeee';
  const line = (n: number, hex = n.toString(16).padStart(8, '0')) => `${prefix}${hex} ns:authority:grant:g-${n}\n`;
  const lines = (ns: number[]) => ns.map((n) => line(n)).join('');

  it('accepts the lines of events 1..n in order, and nothing else', () => {
    expect(inEventOrder(lines([1, 2, 3]), prefix, 3)).toBe(true);
    expect(inEventOrder(lines(Array.from({ length: 300 }, (_, i) => i + 1)), prefix, 300)).toBe(true);
    expect(inEventOrder(lines([2, 1, 3]), prefix, 3)).toBe(false); // out of order
    expect(inEventOrder(lines([1, 2]), prefix, 3)).toBe(false); // one missing
    expect(inEventOrder(lines([1, 2, 3, 4]), prefix, 3)).toBe(false); // one too many
    expect(inEventOrder(line(1) + line(2, '0000000B') + line(3), prefix, 3)).toBe(false); // not lowercase hex
    expect(inEventOrder(lines([1, 2, 3]).replace('ns:event:0196aaaa', 'ns:event:0196aaab'), prefix, 3)).toBe(false);
    expect(inEventOrder(lines([1, 2, 3]).slice(0, -1), prefix, 3)).toBe(false); // no final newline
  });

  it('counts newline-ended lines without splitting them', () => {
    expect(countLines('')).toBe(0);
    expect(countLines(lines([1, 2, 3]))).toBe(3);
    expect(countLines(lines([1, 2, 3]).slice(0, -1))).toBe(2); // an unended last line is not counted
    expect(countLines(lines(Array.from({ length: 300 }, (_, i) => i + 1)))).toBe(300);
  });
});
