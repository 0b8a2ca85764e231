/**
 * The console's read routes (issue 14): GET /v1/decisions searches recorded decisions newest first by agent,
 * principal, reason, decision and time; GET /v1/decisions/stats counts them per reason and per bucket; a principal
 * credential sees only its own; GET /v1/tokens/self names the caller's credential. Bad filters are problem+json
 * naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const AGENT = 'ns:entity:agent:shopper-1';
const ALICE = 'ns:entity:person:alice';

describe('decision search and statistics', () => {
  const clock = new SteppingClock();
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let firstHour: string;
  let bobToken: string;

  beforeAll(async () => {
    // one minute into the next hour, so the hour buckets below cannot straddle a boundary
    clock.offsetMs = (Math.floor(Date.now() / 3600_000) + 1) * 3600_000 + 60_000 - Date.now();
    rt = await startTestRuntime({ clock });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      signerNow: () => Math.floor(clock.now().getTime() / 1000),
    });
    await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    bobToken = (
      await world.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:bob' })
    ).token;
    firstHour = clock.now().toISOString();
    // hour 1: an allow and a blocked merchant; hour 2: two above the approval threshold
    expect((await world.authorize(world.purchase(10))).body.reason).toBe('scope_within_attenuated_authority');
    const casino = world.purchase(10, { resource: { merchant_id: 'casino-1', amount: 10, currency: 'EUR' } });
    expect((await world.authorize(casino)).body.reason).toBe('merchant_category_blocked');
    clock.advance(3600);
    for (let i = 0; i < 2; i++) {
      expect((await world.authorize(world.purchase(45))).body.reason).toBe('amount_above_approval_threshold');
    }
  });
  afterAll(async () => rt?.close());

  it('lists decisions newest first, a page at a time, each with its map, audit entry and evidence', async () => {
    const first = await world.call('GET', '/v1/decisions?limit=3');
    expect(first.status).toBe(200);
    expect(first.body.items.map((d: { reason: string }) => d.reason)).toEqual([
      'amount_above_approval_threshold',
      'amount_above_approval_threshold',
      'merchant_category_blocked',
    ]);
    const item = first.body.items[2];
    expect(item).toMatchObject({ decision: 'deny', actor_entity_id: AGENT, principal_entity_id: ALICE });
    expect(item.decision_map_ref).toMatch(/^ns:decision_map:/);
    expect(item.audit_ref).toMatch(/^ns:audit:/);
    const record = await world.call('GET', `/v1/decisions/${item.policy_decision_id}`);
    expect(record.body).toMatchObject({ reason: 'merchant_category_blocked', decision_map_ref: item.decision_map_ref });
    const second = await world.call('GET', `/v1/decisions?limit=3&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((d: { reason: string }) => d.reason)).toEqual(['scope_within_attenuated_authority']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('filters by reason, decision, agent, principal and time', async () => {
    const reasons = async (query: string, token?: string) =>
      (await world.call('GET', `/v1/decisions?${query}`, undefined, token)).body.items.map(
        (d: { reason: string }) => d.reason,
      );
    expect(await reasons('reason=merchant_category_blocked')).toEqual(['merchant_category_blocked']);
    expect(await reasons('decision=require_approval')).toHaveLength(2);
    expect(await reasons('actor_entity_id=ns:agent:shopper-1')).toHaveLength(4);
    expect(await reasons('actor_entity_id=ns:entity:agent:nobody')).toEqual([]);
    expect(await reasons('principal_entity_id=ns:human:alice')).toHaveLength(4);
    const hour2 = new Date(Date.parse(firstHour) + 3600_000).toISOString();
    expect(await reasons(`until=${encodeURIComponent(hour2)}`)).toEqual([
      'merchant_category_blocked',
      'scope_within_attenuated_authority',
    ]);
    expect(await reasons(`since=${encodeURIComponent(hour2)}`)).toHaveLength(2);
    // a principal credential sees its own principal's only, and naming another is 403
    expect(await reasons('', world.principalToken)).toHaveLength(4);
    expect(await reasons('', bobToken)).toEqual([]);
    const other = await world.call('GET', `/v1/decisions?principal_entity_id=${ALICE}`, undefined, bobToken);
    expect(other.status).toBe(403);
  });

  it('refuses a bad filter with problem+json naming the field', async () => {
    const cases: [string, number, string][] = [
      ['reason=not_a_reason', 400, '/query/reason'],
      ['decision=maybe', 400, '/query/decision'],
      ['since=yesterday', 400, '/query/since'],
      ['since=2026-04-15T10:00:00', 400, '/query/since'],
      ['since=2026-04-15T10:00:00Z&until=2026-04-15T09:00:00Z', 400, '/query/until'],
      ['actor_entity_id=shopper-1', 400, '/query/actor_entity_id'],
      ['cursor=%21%21', 400, '/query/cursor'],
      ['limit=0', 400, '/query/limit'],
    ];
    for (const [query, status, pointer] of cases) {
      const res = await world.call('GET', `/v1/decisions?${query}`);
      expect([query, res.status], JSON.stringify(res.body)).toEqual([query, status]);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(res.body), query).toContain(pointer);
    }
    // the runtime role reads no decision lists
    expect((await world.call('GET', '/v1/decisions', undefined, world.runtimeToken)).status).toBe(403);
  });

  it('counts decisions per reason and per hour', async () => {
    const stats = await world.call('GET', '/v1/decisions/stats?bucket=hour');
    expect(stats.status).toBe(200);
    expect(stats.body.total).toBe(4);
    expect(stats.body.by_reason).toEqual([
      { reason: 'amount_above_approval_threshold', decision: 'require_approval', count: 2 },
      { reason: 'merchant_category_blocked', decision: 'deny', count: 1 },
      { reason: 'scope_within_attenuated_authority', decision: 'allow_with_constraints', count: 1 },
    ]);
    const hour = `${firstHour.slice(0, 13)}:00:00Z`;
    expect(stats.body.over_time[0]).toEqual({ start: hour, allow_with_constraints: 1, require_approval: 0, deny: 1 });
    expect(stats.body.over_time[1]).toMatchObject({ require_approval: 2, deny: 0 });
    const days = await world.call('GET', '/v1/decisions/stats?reason=merchant_category_blocked');
    expect(days.body).toMatchObject({
      total: 1,
      over_time: [{ start: `${firstHour.slice(0, 10)}T00:00:00Z`, deny: 1 }],
    });
    expect((await world.call('GET', '/v1/decisions/stats', undefined, bobToken)).body.total).toBe(0);
    expect((await world.call('GET', '/v1/decisions/stats?bucket=week')).status).toBe(400);
  });

  it('names the credential a request was made with, never its secret', async () => {
    const admin = await world.call('GET', '/v1/tokens/self');
    expect(admin.body).toMatchObject({ role: 'admin', principal_entity_id: null });
    const principal = await world.call('GET', '/v1/tokens/self', undefined, world.principalToken);
    expect(principal.body).toMatchObject({ role: 'principal', principal_entity_id: ALICE });
    expect(Object.keys(principal.body).sort()).toEqual(['principal_entity_id', 'role', 'token_id']);
    expect((await world.call('GET', '/v1/tokens/self', undefined, 'aar_unknown')).status).toBe(401);
  });
});
