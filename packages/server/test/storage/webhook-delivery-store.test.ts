/**
 * The delivery tables on every dialect: endpoint leases (FOR UPDATE SKIP LOCKED on PostgreSQL, the single writer on
 * SQLite), a lease that expires is taken over and the old holder can no longer move the cursor, an attempt is
 * settled once, and two workers sharing one store make every first attempt exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimEndpoints, renewLease } from '../../src/services/webhooks/claim-endpoints.ts';
import { fanOutEvents, LeaseLostError } from '../../src/services/webhooks/fan-out-events.ts';
import { settleAttempts } from '../../src/services/webhooks/settle-attempts.ts';
import { dueRound } from '../../src/services/webhooks/due-attempts.ts';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { testDialects } from '../support/dialects.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('webhook delivery tables on %s', (dialect) => {
  const clock = new SteppingClock();
  let rt: TestRuntime;
  let receiver: WebhookReceiver;
  let merchants = 0;

  const inject = async (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => {
    const res = await rt.app.inject({ method, url, headers: auth(), ...(payload ? { payload } : {}) });
    return JSON.parse(res.body || '{}');
  };
  const endpoint = async (): Promise<string> =>
    (
      await inject('POST', '/v1/webhook-endpoints', {
        url: receiver.url,
        profile: 'asymmetric',
        event_types: ['ns.merchant.created'],
      })
    ).endpoint_id;
  const merchant = async () => {
    merchants += 1;
    await inject('POST', '/v1/merchants', {
      id: `s-${merchants}`,
      display_name: 'S',
      category: '5411',
      jurisdiction: 'DE',
    });
  };
  const disableAll = async () => {
    for (const e of (await inject('GET', '/v1/webhook-endpoints?limit=500')).items) {
      await inject('POST', `/v1/webhook-endpoints/${encodeURIComponent(e.endpoint_id)}/disable`);
    }
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect, clock, config: { webhookAllowInsecure: true } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await rt?.close();
  });

  it('two claimers at once never lease the same endpoint', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await endpoint());
    await merchant();
    const [a, b] = await Promise.all([
      claimEndpoints(rt.ctx, 'owner-a', 30_000, 100, []),
      claimEndpoints(rt.ctx, 'owner-b', 30_000, 100, []),
    ]);
    const claimedA = a.map((e) => e.endpoint_id);
    const claimedB = b.map((e) => e.endpoint_id);
    expect(claimedA.filter((id) => claimedB.includes(id))).toEqual([]);
    expect([...claimedA, ...claimedB].sort()).toEqual([...ids].sort());
    // leased: nobody else gets them while the lease lives
    expect(await claimEndpoints(rt.ctx, 'owner-c', 30_000, 100, [])).toEqual([]);
    await disableAll();
  });

  it('an expired lease is taken over; the old holder can no longer move the cursor', async () => {
    const id = await endpoint();
    await merchant();
    const [mine] = await claimEndpoints(rt.ctx, 'owner-old', 1_000, 10, []);
    expect(mine?.endpoint_id).toBe(id);
    clock.advance(2);
    const [theirs] = await claimEndpoints(rt.ctx, 'owner-new', 30_000, 10, []);
    expect(theirs?.endpoint_id).toBe(id);
    await expect(fanOutEvents(rt.ctx, mine!, 'owner-old')).rejects.toBeInstanceOf(LeaseLostError);
    expect(await renewLease(rt.ctx, id, 'owner-old', 30_000)).toBeUndefined();
    expect(await fanOutEvents(rt.ctx, theirs!, 'owner-new')).toBeGreaterThan(0);
    const { attempts: due, envelopes } = await dueRound(rt.ctx, id, 10);
    expect(due).toHaveLength(1);
    // the event's envelope comes with its attempt, rebuilt as GET /v1/events serves it (unsigned)
    expect(envelopes.get(due[0]!.event_id)).toMatchObject({
      event_id: due[0]!.event_id,
      schema_version: 'ns.webhook.v1',
    });
    // settled once: a second settle of the same attempt changes nothing
    const outcome = {
      attempt: due[0]!,
      attemptedAt: clock.now(),
      response: { status: 200, retryAfter: undefined, durationMs: 3, error: null, bytesRead: 0 },
    };
    await settleAttempts(rt.ctx, theirs!, [outcome]);
    await settleAttempts(rt.ctx, theirs!, [{ ...outcome, response: { ...outcome.response, status: 500 } }]);
    const rows = await rt.ctx.store.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('endpoint_id', '=', id)
      .execute();
    expect(rows.map((r) => [r.attempt, r.status, r.response_status])).toEqual([[1, 'succeeded', 200]]);
    await disableAll();
  });

  it('two workers on one store make every first attempt exactly once', async () => {
    const id = await endpoint();
    for (let i = 0; i < 150; i++) await merchant();
    const before = receiver.received.length;
    const one = new WebhookWorker(rt.ctx);
    const two = new WebhookWorker(rt.ctx);
    await Promise.all([one.drain(), two.drain()]);
    const got = receiver.received.slice(before).map((d) => String(d.headers['webhook-id']));
    expect(got).toHaveLength(150);
    expect(new Set(got).size).toBe(150);
    // in commit order
    const seqs = await rt.ctx.store.db
      .selectFrom('webhook_attempts')
      .select(['event_id', 'event_seq'])
      .where('endpoint_id', '=', id)
      .execute();
    const seqOf = new Map(seqs.map((s) => [s.event_id, Number(s.event_seq)]));
    const order = got.map((e) => seqOf.get(e)!);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    await one.stop();
    await two.stop();
    await disableAll();
  });

  it('an attempt whose event row is missing is still due, without an envelope (the worker then records event_missing)', async () => {
    const id = await endpoint();
    await merchant();
    const [mine] = await claimEndpoints(rt.ctx, 'owner-missing', 30_000, 10, []);
    expect(mine?.endpoint_id).toBe(id);
    await fanOutEvents(rt.ctx, mine!, 'owner-missing');
    // a damaged store: an attempt naming an event that no row holds (no foreign key; events are never deleted)
    const now = clock.now().toISOString();
    await rt.ctx.store.db
      .insertInto('webhook_attempts')
      .values({
        endpoint_id: id,
        event_id: 'ns:event:00000000-0000-4000-8000-000000000000',
        event_seq: 1_000_000_000,
        event_type: 'ns.merchant.created',
        attempt: 1,
        status: 'pending',
        replay: 0,
        next_attempt_at: now,
        attempted_at: null,
        response_status: null,
        duration_ms: null,
        error: null,
        created_at: now,
      })
      .execute();
    const { attempts, envelopes } = await dueRound(rt.ctx, id, 10);
    expect(attempts).toHaveLength(2);
    expect(envelopes.size).toBe(1);
    expect(envelopes.has(attempts[0]!.event_id)).toBe(true);
    expect(envelopes.has(attempts[1]!.event_id)).toBe(false);
    await rt.ctx.store.db.deleteFrom('webhook_attempts').where('endpoint_id', '=', id).execute();
    await disableAll();
  });
});
