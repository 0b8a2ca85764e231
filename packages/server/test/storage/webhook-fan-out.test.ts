/**
 * Fan-out (fan-out-events.ts) filters events by the endpoint's event types in SQL, on both databases: it must queue
 * exactly the events `matchesEventTypes` (event-type-filter.ts) passes, for exact types, families and mixes, skip an
 * endpoint's own exhausted deliveries, keep commit order, and move the cursor a page at a time.
 */
import { EVENT_CATALOGUE } from '@aar/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutEvents, FAN_OUT_PAGE, LeaseLostError } from '../../src/services/webhooks/fan-out-events.ts';
import { matchesEventTypes } from '../../src/services/webhooks/event-type-filter.ts';
import type { WebhookEndpointRow } from '../../src/services/webhooks/endpoint-view.ts';
import { testDialects } from '../support/dialects.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const OWNER = 'test-owner';
const TYPES = EVENT_CATALOGUE.map((d) => d.event_type);
const FILTERS: Array<string[] | null> = [
  null,
  ['ns.merchant.created'],
  ['ns.authority.*'],
  ['ns.webhook.*', 'ns.merchant.created', 'ns.decision.*'],
];

for (const dialect of await testDialects()) {
  describe(`webhook fan-out (${dialect})`, () => {
    let rt: TestRuntime;
    let seq = 0;

    /** raw event rows of the given types (the outbox is only read by fan-out) */
    const insertEvents = async (types: readonly string[], subject = 'x') => {
      for (const type of types) {
        seq += 1;
        await sql`insert into events (event_id, event_type, occurred_at, subject_ref, envelope)
          values (${`ns:event:fan-${seq}`}, ${type}, ${new Date().toISOString()}, ${subject}, '{}')`.execute(
          rt.ctx.store.db,
        );
      }
    };
    /** an endpoint leased by OWNER, its cursor at the current end of the outbox */
    const leased = async (eventTypes: string[] | null): Promise<WebhookEndpointRow> => {
      const res = await rt.app.inject({
        method: 'POST',
        url: '/v1/webhook-endpoints',
        headers: auth(),
        payload: {
          url: 'http://127.0.0.1:9/hook',
          profile: 'asymmetric',
          ...(eventTypes ? { event_types: eventTypes } : {}),
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      const view = res.json() as { endpoint_id: string };
      return rt.ctx.store.db
        .updateTable('webhook_endpoints')
        .set((eb) => ({
          lease_owner: OWNER,
          lease_until: new Date(Date.now() + 60_000).toISOString(),
          // past the endpoint's own creation event: the test's events are the only ones after the cursor
          cursor_seq: eb.selectFrom('events').select((e) => e.fn.max('seq').as('m')),
        }))
        .where('endpoint_id', '=', view.endpoint_id)
        .returningAll()
        .executeTakeFirstOrThrow();
    };
    const queued = async (endpointId: string) =>
      rt.ctx.store.db
        .selectFrom('webhook_attempts')
        .select(['event_id', 'event_type', 'event_seq'])
        .where('endpoint_id', '=', endpointId)
        .orderBy('seq')
        .execute();

    beforeAll(async () => {
      rt = await startTestRuntime({ dialect, config: { webhookAllowInsecure: true } });
    });
    afterAll(async () => rt?.close());

    it.each(FILTERS.map((f) => [JSON.stringify(f), f] as const))(
      'filter %s queues exactly what matchesEventTypes passes, in commit order',
      async (_name, filter) => {
        const endpoint = await leased(filter);
        const before = endpoint.cursor_seq;
        await insertEvents([...TYPES, ...TYPES.slice().reverse()]);
        const passed = await fanOutEvents(rt.ctx, endpoint, OWNER);
        expect(passed).toBe(TYPES.length * 2);
        const rows = await rt.ctx.store.db
          .selectFrom('events')
          .select(['event_id', 'event_type', 'seq'])
          .where('seq', '>', before)
          .orderBy('seq')
          .execute();
        const want = rows.filter((r) => matchesEventTypes(filter, r.event_type)).map((r) => r.event_id);
        expect(want.length).toBeGreaterThan(0);
        expect((await queued(endpoint.endpoint_id)).map((r) => r.event_id)).toEqual(want);
        expect(endpoint.cursor_seq).toBe(Number(rows.at(-1)!.seq));
        // nothing new: nothing passed, nothing queued twice
        expect(await fanOutEvents(rt.ctx, endpoint, OWNER)).toBe(0);
        expect(await queued(endpoint.endpoint_id)).toHaveLength(want.length);
      },
    );

    it("skips the endpoint's own exhausted deliveries, not another endpoint's", async () => {
      const endpoint = await leased(['ns.webhook.*']);
      await insertEvents(['ns.webhook.delivery_exhausted'], endpoint.endpoint_id);
      await insertEvents(['ns.webhook.delivery_exhausted'], 'ns:webhook_endpoint:another');
      await fanOutEvents(rt.ctx, endpoint, OWNER);
      expect((await queued(endpoint.endpoint_id)).map((r) => r.event_id)).toEqual([`ns:event:fan-${seq}`]);
    });

    it('passes a page at a time and refuses to move a cursor it no longer leases', async () => {
      const endpoint = await leased(['ns.merchant.created']);
      await insertEvents(Array.from({ length: FAN_OUT_PAGE + 5 }, () => 'ns.merchant.created'));
      expect(await fanOutEvents(rt.ctx, endpoint, OWNER)).toBe(FAN_OUT_PAGE);
      expect(await queued(endpoint.endpoint_id)).toHaveLength(FAN_OUT_PAGE);
      await expect(fanOutEvents(rt.ctx, endpoint, 'someone-else')).rejects.toBeInstanceOf(LeaseLostError);
      expect(await queued(endpoint.endpoint_id)).toHaveLength(FAN_OUT_PAGE); // rolled back with the cursor
      expect(await fanOutEvents(rt.ctx, endpoint, OWNER)).toBe(5);
      expect(await queued(endpoint.endpoint_id)).toHaveLength(FAN_OUT_PAGE + 5);
    });
  });
}
