/**
 * Hostile text where it meets the database, on every dialect: `q` of GET /v1/listings/search holding SQL LIKE
 * wildcards, quotes and backslashes matches them literally (never "anything"), the same on SQLite and PostgreSQL;
 * a NUL character, which PostgreSQL cannot store or compare in `text`, is refused at the edge naming the field
 * instead of failing in the driver as a 500; forged cursors are refused; and a bundle whose purpose holds hostile
 * text round-trips byte for byte (its JSON escapes what the column could not hold).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld } from '../support/delegation-world.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectProblem, send } from '../security/hostile-support.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dialects = await testDialects();

/** titles chosen so that each wildcard, read as one, would match listings it must not */
const TITLES = [
  '100% audited',
  '100 audited',
  'snake_case bot',
  'snakeXcase bot',
  "O'Brien procurement",
  'OBrien procurement',
  'back\\slash agent',
  'backslash agent',
  'quote "double" agent',
  'ÜBER Einkauf',
];

const listing = (title: string, over: Json = {}): Json => ({
  kind: 'agent',
  title,
  publisher: { name: 'Hostile Test Publisher', tier: 'community' },
  sectors: ['retail'],
  regimes: [],
  jurisdictions: ['DE'],
  pricing_model: 'free',
  ...over,
});

describe.each(dialects)('hostile text on %s', (dialect) => {
  let rt: TestRuntime;
  let all: Json[];
  const get = (url: string) => send(rt.app, auth().authorization!.slice('Bearer '.length), { method: 'GET', url });
  const count = async () => (await rt.ctx.store.db.selectFrom('listings').select('seq').execute()).length;
  const searchAll = async (query: string): Promise<Json[]> => {
    const items: Json[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/v1/listings/search?limit=500${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      items.push(...(res.body.items as Json[]));
      cursor = res.body.next_cursor as string | null;
    } while (cursor !== null);
    return items;
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    for (const title of TITLES) {
      const res = await rt.app.inject({
        method: 'POST',
        url: '/v1/listings',
        headers: auth(),
        payload: listing(title),
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    all = await searchAll('');
  });
  afterAll(async () => rt?.close());

  const literal = [
    '%',
    '_',
    "'",
    '\\',
    '"',
    '100%',
    'snake_case',
    "o'brien",
    'back\\slash',
    '%_%',
    "' or 1=1 --",
    'über',
  ];
  it.each(literal)('q=%s matches the literal text, case-insensitively, and nothing else', async (q) => {
    const expected = all
      .filter((l) => `${l.title}\n${l.publisher.name}`.toLowerCase().includes(q.toLowerCase()))
      .map((l) => l.listing_id);
    const found = (await searchAll(`&q=${encodeURIComponent(q)}`)).map((l) => l.listing_id);
    expect(found).toEqual(expected);
    expect(found.length).toBeLessThan(all.length);
  });

  it('the wildcards that would match a listing of the other spelling do not', async () => {
    const titles = async (q: string) => (await searchAll(`&q=${encodeURIComponent(q)}`)).map((l) => l.title);
    expect(await titles('100%')).toEqual(['100% audited']);
    expect(await titles('snake_case')).toEqual(['snake_case bot']);
    expect(await titles("o'brien")).toEqual(["O'Brien procurement"]);
    expect(await titles('back\\slash')).toEqual(['back\\slash agent']);
    expect(await titles('ÜBER')).toEqual(['ÜBER Einkauf']);
  });

  it('refuses a NUL character in text it would store or compare, naming the field, storing nothing', async () => {
    const before = await count();
    const post = (payload: Json) =>
      send(rt.app, auth().authorization!.slice('Bearer '.length), { method: 'POST', url: '/v1/listings', payload });
    expectProblem(await post(listing('nul\u0000title')), 400, 'invalid_request', '/title');
    expectProblem(
      await post(listing('fine', { publisher: { name: 'nul\u0000publisher', tier: 'community' } })),
      400,
      'invalid_request',
      '/publisher/name',
    );
    expect(await count()).toBe(before);
    expectProblem(await get('/v1/listings/search?q=a%00b'), 400, 'invalid_request', '/query/q');
    expectProblem(await get('/v1/listings/ns:listing:a%00b'), 400, 'invalid_id', '/params/id');
  });

  it('refuses forged cursors (400) and a cursor past the end is an empty page, never another table', async () => {
    const forged = [
      'czE=',
      'not-a-cursor!',
      Buffer.from('s-1').toString('base64url'),
      Buffer.from("s1' or 1=1").toString('base64url'),
      Buffer.from('s1e9').toString('base64url'),
      'cw',
    ];
    for (const cursor of forged) {
      expectProblem(
        await get(`/v1/listings/search?cursor=${encodeURIComponent(cursor)}`),
        400,
        'invalid_request',
        '/query/cursor',
      );
    }
    const past = await get(`/v1/listings/search?cursor=${Buffer.from('s999999999999999').toString('base64url')}`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ items: [], next_cursor: null });
  });
});

describe.each(dialects)('hostile text in credentials and bundles on %s', (dialect) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
  });
  afterAll(async () => rt?.close());

  it('a token label with a NUL is refused naming /label, and no token is made', async () => {
    const tokens = async () => (await rt.ctx.store.db.selectFrom('api_tokens').select('token_id').execute()).length;
    const before = await tokens();
    const res = await send(rt.app, ADMIN_TOKEN, {
      method: 'POST',
      url: '/v1/tokens',
      payload: { role: 'auditor', label: 'ops\u0000console' },
    });
    expectProblem(res, 400, 'invalid_request', '/label');
    expect(await tokens()).toBe(before);
  });

  it('a bundle whose purpose holds a right-to-left override and NFD text is stored and served byte for byte; NUL is refused', async () => {
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const w = await buildDelegationWorld(base, ADMIN_TOKEN);
    const decision = (await w.authorize('concierge', w.purchase('concierge', 20))).body;
    expect(decision.policy_decision_id).toMatch(/^ns:decision:/);
    const withNul = await send(rt.app, ADMIN_TOKEN, {
      method: 'POST',
      url: '/v1/bundles/assemble',
      payload: { policy_decision_id: decision.policy_decision_id, purpose: { purpose: 'dispute', ticket: 'a\u0000b' } },
    });
    expectProblem(withNul, 400, 'invalid_request', '/purpose/ticket');
    const ticket = 'CASE-\u202egnp.exe-e\u0301';
    const made = await send(rt.app, ADMIN_TOKEN, {
      method: 'POST',
      url: '/v1/bundles/assemble',
      payload: { policy_decision_id: decision.policy_decision_id, purpose: { purpose: 'dispute', ticket } },
    });
    expect(made.status, made.text.slice(0, 300)).toBe(201);
    expect(made.body.purpose_manifest.ticket).toBe(ticket);
    const read = await send(rt.app, ADMIN_TOKEN, { method: 'GET', url: `/v1/bundles/${made.body.bundle_id}` });
    expect(read.text).toBe(made.text);
    const verified = await send(rt.app, ADMIN_TOKEN, {
      method: 'POST',
      url: '/v1/bundles/verify',
      payload: { bundle: made.body },
    });
    expect(verified.body.valid, verified.text.slice(0, 500)).toBe(true);
  });
});

describe.each(dialects)('decision search filters on %s', (dialect) => {
  let rt: TestRuntime;
  let auditor: string;
  const get = (url: string) => send(rt.app, auditor, { method: 'GET', url });
  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
    for (let i = 0; i < 2; i++) expect((await world.authorize(world.purchase(10))).status).toBe(200);
  });
  afterAll(async () => rt?.close());

  it('ids with `_` and `%` compare literally, instants at the ends of the range work, NUL never reaches the database', async () => {
    expect((await get('/v1/decisions')).body.items).toHaveLength(2);
    for (const id of ['ns:entity:agent:shopper_1', 'ns:entity:agent:shopper-_', 'ns:entity:agent:shopper-%25']) {
      const res = await get(`/v1/decisions?actor_entity_id=${id}`);
      expect([200, 400], res.text).toContain(res.status);
      if (res.status === 200) expect(res.body.items).toEqual([]);
    }
    const wide = await get('/v1/decisions/stats?since=0000-01-01T00:00:00Z&until=9999-12-31T23:59:59.999Z&bucket=hour');
    expect(wide.status, wide.text).toBe(200);
    expect(wide.body.total).toBe(2);
    for (const query of ['actor_entity_id=ns:entity:agent:a%00', 'reason=deny%00', 'since=2026-01-01T00:00:00Z%00']) {
      const res = await get(`/v1/decisions?${query}`);
      expect(res.status, res.text).toBe(400);
    }
  });
});
