/**
 * POST /v1/grants with the issue 29 scope members: a child with a budget and a merchant list within its parent's is
 * created and reads back as sent; a wider one is 422 `scope_not_subset` naming every offending field, nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { buildDelegationWorld, countState, type DelegationWorld } from '../support/delegation-world.ts';

const MIDDLE = {
  max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  budget: { amount: 200, currency: 'EUR', period: 'month' },
  allowed_merchants: ['grocer-berlin', 'bakery-paris'],
};

describe('sub-delegation with a budget and allowed merchants', () => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let middleId: string;
  const clock = new SteppingClock();

  beforeAll(async () => {
    rt = await startTestRuntime({ clock });
    w = await buildDelegationWorld(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN, clock);
    const res = await w.delegate(w.root.grant_id, 'concierge', 'ns:agent:planner', MIDDLE);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    middleId = res.body.grant_id;
  });
  afterAll(async () => rt?.close());

  it('stores the budget and merchants and signs them in the link', async () => {
    const res = await w.call('GET', `/v1/grants/${middleId}`);
    expect(res.body.scope).toEqual(MIDDLE);
    expect(res.body.link.scope).toEqual(MIDDLE);
  });

  it('accepts a smaller budget in another period and a subset of the merchants', async () => {
    const res = await w.delegate(middleId, 'planner', 'ns:entity:agent:shopper-1', {
      budget: { amount: 20, currency: 'EUR', period: 'week' },
      allowed_merchants: ['ns:merchant:bakery-paris'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.scope).toEqual({
      budget: { amount: 20, currency: 'EUR', period: 'week' },
      allowed_merchants: ['bakery-paris'],
    });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a larger budget', { budget: { amount: 200.01, currency: 'EUR', period: 'day' } }, ['/scope/budget']],
    [
      'a budget in another currency',
      { budget: { amount: 1, currency: 'USD', period: 'day' } },
      ['/scope/budget/currency'],
    ],
    ['an added merchant', { allowed_merchants: ['grocer-berlin', 'casino-online'] }, ['/scope/allowed_merchants']],
    [
      'both, and a per-purchase limit',
      {
        max_amount_per_purchase: { amount: 60, currency: 'EUR' },
        budget: { amount: 500, currency: 'EUR', period: 'total' },
        allowed_merchants: ['casino-online'],
      },
      ['/scope/max_amount_per_purchase', '/scope/budget', '/scope/allowed_merchants'],
    ],
  ])('refuses %s, naming every field, and writes nothing', async (_name, scope, paths) => {
    const before = await countState(rt.ctx);
    const res = await w.delegate(middleId, 'planner', 'ns:entity:agent:sibling', scope);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe('scope_not_subset');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    expect(await countState(rt.ctx)).toEqual(before);
  });
});
