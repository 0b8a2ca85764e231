/**
 * The revocation cascade over a large subtree, through the API: 100k grants on the embedded default (SQLite), 10k on
 * PostgreSQL. Asserts the outcome (every grant revoked, one event per grant, one audit entry, the agent below denied
 * at once), never the time: the timing lives in the benchmark (bench/revocation-cascade.ts).
 */
import { envelopesOf } from '../../src/services/events/derived-envelope.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@aar/core';
import { testDialects } from '../support/dialects.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { insertGrantTree } from '../support/grant-tree.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const SIZES = { sqlite: 100_000, postgres: 10_000 } as const;

for (const dialect of await testDialects()) {
  const size = SIZES[dialect];
  describe(`revocation cascade over ${size} grants (${dialect})`, () => {
    let rt: TestRuntime;
    let w: DelegationWorld;
    let leaf: string;

    beforeAll(async () => {
      rt = await startTestRuntime({ dialect });
      w = await buildDelegationWorld(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
      const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {});
      leaf = (await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {})).body.grant_id;
      const template = (await w.call('GET', `/v1/grants/${leaf}`)).body.link;
      // the root, middle and leaf exist already: the filler makes the subtree exactly `size`
      await insertGrantTree(rt.ctx, { root: w.root, size: size - 2, template: JSON.stringify(template) });
    }, 120_000);
    afterAll(async () => rt?.close());

    it('revokes every grant of the subtree with one event each and one audit entry', async () => {
      expect((await w.authorize('shopper-1', w.purchase('shopper-1', 10))).body.decision).toBe(
        'allow_with_constraints',
      );
      const db = rt.ctx.store.db;
      const count = async (query: Promise<{ n: unknown }>) => Number((await query).n);
      const auditBefore = await count(
        db
          .selectFrom('audit_entries')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('kind', '=', 'ns.authority.revoked')
          .executeTakeFirstOrThrow(),
      );

      const res = await w.call('POST', `/v1/grants/${w.root.grant_id}/revoke`, undefined, w.aliceToken);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ revoked_count: size, already_revoked: false });
      console.log(`[cascade ${dialect}] ${size} grants revoked, answered in ${res.body.elapsed_ms} ms (not asserted)`);

      const denied = await w.authorize('shopper-1', w.purchase('shopper-1', 10));
      expect(denied.body).toMatchObject({ decision: 'deny', reason: 'authority_revoked' });

      expect(
        await count(
          db
            .selectFrom('grant_revocations')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow(),
        ),
      ).toBe(size);
      const events = await db
        .selectFrom('events')
        .select(['event_id', 'subject_ref', 'envelope', 'operation_ref'])
        .where('event_type', '=', 'ns.authority.revoked')
        .orderBy('seq')
        .execute();
      expect(events).toHaveLength(size);
      expect(new Set(events.map((e) => e.subject_ref)).size).toBe(size);
      // ids minted by the database (RFC 9562 UUIDv7, a dedicated counter in rand_b): well-formed, unique, in order
      expect(
        events.every((e) =>
          /^ns:event:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(e.event_id),
        ),
      ).toBe(true);
      expect(new Set(events.map((e) => e.event_id)).size).toBe(size);
      expect(events.map((e) => e.event_id)).toEqual(events.map((e) => e.event_id).sort());
      // stored slim (the operation's common members once), rebuilt whole when read
      expect(events.every((e) => e.operation_ref === res.body.audit_ref && e.envelope === '')).toBe(true);
      const [sample] = await envelopesOf(db, [events[events.length - 1]!]);
      expect(canonicalJson(sample)).toContain('"affected_capabilities":["ns:capability:');
      expect(sample).toMatchObject({
        schema_version: 'ns.webhook.v1',
        event_type: 'ns.authority.revoked',
        subject_ref: events[events.length - 1]!.subject_ref,
        principal_entity_id: 'ns:entity:person:alice',
        reason_code: 'principal_revoked_authority',
        audit_ref: res.body.audit_ref,
        data: { previous_state: 'active', new_state: 'revoked', revocation_root: w.root.grant_id },
      });
      expect(
        await count(
          db
            .selectFrom('audit_entries')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('kind', '=', 'ns.authority.revoked')
            .executeTakeFirstOrThrow(),
        ),
      ).toBe(auditBefore + 1);
      const page = await w.call('GET', '/v1/events?event_type=ns.authority.revoked&limit=500');
      expect(page.body.items).toHaveLength(500);
      expect(page.body.items[0].signature.algorithm).toBe('ed25519');
      expect((await w.call('GET', `/v1/grants/${leaf}`)).body.state).toBe('revoked');
    }, 120_000);
  });
}
