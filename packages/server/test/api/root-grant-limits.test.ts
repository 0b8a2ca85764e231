/**
 * Grants that never end (issue 8, point 10): a root grant that can move money must carry `valid_until`,
 * `max_amount_per_purchase` and `max_daily_amount`; a refusal is 400 naming every missing field, and writes nothing.
 * A root grant that cannot move money (search only), and a sub-delegation (it inherits the root's), need none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_GRANT_REQUIRED_FIELDS } from '../../src/services/grants/root-grant-limits.ts';
import { inOneYear } from '../support/fixtures.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const BOUNDED = () => ({
  valid_until: inOneYear(),
  max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  max_daily_amount: { amount: 100, currency: 'EUR' },
});

describe('root grants that can move money must end and be bounded', () => {
  let rt: TestRuntime;

  const post = async (url: string, payload: unknown) => {
    const res = await rt.app.inject({ method: 'POST', url, headers: auth(), payload: payload as object });
    return { status: res.statusCode, body: res.json(), type: String(res.headers['content-type']) };
  };
  const grant = (capability: string, scope: Record<string, unknown>) =>
    post('/v1/grants', {
      principal_entity_id: 'ns:entity:person:alice',
      actor_entity_id: 'ns:entity:agent:shopper-1',
      capability_id: capability,
      resource_id: 'ns:credential:card-token:tok-1',
      scope,
    });
  const counts = async () => ({
    grants: (await rt.ctx.store.db.selectFrom('grants').select('grant_id').execute()).length,
    events: (await rt.ctx.store.db.selectFrom('events').select('event_id').execute()).length,
  });

  beforeAll(async () => {
    rt = await startTestRuntime();
    for (const body of [
      { type: 'person', id: 'alice', display_name: 'Alice' },
      { type: 'agent', id: 'shopper-1', display_name: 'Shopper' },
    ]) {
      expect((await post('/v1/entities', body)).status).toBe(201);
    }
    expect(
      (
        await post('/v1/card-tokens', {
          id: 'tok-1',
          principal_entity_id: 'ns:entity:person:alice',
          network_token: 'ntk_alice_1',
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => rt?.close());

  it.each([
    ['ns:capability:payment_action:card_purchase'],
    ['ns:capability:purchase:execute'],
    ['ns:capability:purchase:refund_request'],
  ])('refuses an unbounded %s root grant with 400 naming every missing field, writing nothing', async (cap) => {
    const before = await counts();
    const res = await grant(cap, { allowed_jurisdictions: ['DE'] });
    expect(res.status).toBe(400);
    expect(res.type).toContain('application/problem+json');
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/scope/valid_until',
      '/scope/max_amount_per_purchase',
      '/scope/max_daily_amount',
    ]);
    expect(await counts()).toEqual(before);
  });

  it('names only the fields that are missing', async () => {
    for (const missing of ROOT_GRANT_REQUIRED_FIELDS) {
      const scope: Record<string, unknown> = BOUNDED();
      delete scope[missing];
      const res = await grant('ns:capability:payment_action:card_purchase', scope);
      expect(res.status, missing).toBe(400);
      expect(res.body.errors, missing).toEqual([{ path: `/scope/${missing}`, message: expect.any(String) }]);
    }
  });

  it('accepts a bounded money-moving root grant', async () => {
    expect((await grant('ns:capability:payment_action:card_purchase', BOUNDED())).status).toBe(201);
  });

  it('accepts a root grant that cannot move money without them', async () => {
    expect((await grant('ns:capability:purchase:search', {})).status).toBe(201);
    const searchOnly = await grant('ns:capability:payment_action:card_purchase', {
      allowed_actions: ['purchase.search', 'purchase.compare', 'purchase.request_approval'],
    });
    expect(searchOnly.status, JSON.stringify(searchOnly.body)).toBe(201);
    // but allowed_actions that keep execute or refund_request make it a money-moving grant again
    const refund = await grant('ns:capability:payment_action:card_purchase', {
      allowed_actions: ['purchase.search', 'purchase.refund_request'],
    });
    expect(refund.status).toBe(400);
    expect(refund.body.errors).toHaveLength(3);
  });

  it('lets a sub-delegation inherit the bounds of its root', async () => {
    const root = await grant('ns:capability:payment_action:card_purchase', { ...BOUNDED(), may_delegate: true });
    expect(root.status).toBe(201);
    expect((await post('/v1/entities', { type: 'agent', id: 'helper-1', display_name: 'Helper' })).status).toBe(201);
    const child = await rt.app.inject({
      method: 'POST',
      url: '/v1/grants',
      headers: auth(),
      payload: { parent_grant_id: root.body.grant_id, actor_entity_id: 'ns:entity:agent:helper-1', scope: {} },
    });
    expect(child.statusCode, child.body).toBe(201);
  });
});
