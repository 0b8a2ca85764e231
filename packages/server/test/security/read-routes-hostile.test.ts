/**
 * Hostile input against the read routes added for the console and the contract documents (CONTRACT sections 7, 16,
 * 17): GET /v1/decisions and /v1/decisions/stats (roles, every filter refused naming it, cursors that cannot be
 * forged into another principal's decisions, instants outside the four-digit years), GET /v1/tokens/self, and the
 * public JSON Schemas, whose `{name}` never reads a file outside the schema folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectProblem, send, TEST_PAN, type RawRequest } from './hostile-support.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ALICE = 'ns:entity:person:alice';
let rt: TestRuntime;
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
let auditor: string;
let bob: string;
let aliceDecisions: string[];

const call = (req: RawRequest, token = auditor) => send(rt.app, token, req);
const get = (url: string, token = auditor) => call({ method: 'GET', url }, token);

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
  bob = (await world.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:bob' }))
    .token;
  auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
  for (let i = 0; i < 3; i++) expect((await world.authorize(world.purchase(10))).status).toBe(200);
  aliceDecisions = ((await get('/v1/decisions')).body.items as Json[]).map((d) => d.policy_decision_id);
  expect(aliceDecisions).toHaveLength(3);
});
afterAll(async () => rt?.close());

describe('GET /v1/decisions and /v1/decisions/stats', () => {
  it('a runtime credential may not search; none may without a token or with one in the url', async () => {
    for (const url of ['/v1/decisions', '/v1/decisions/stats']) {
      expectProblem(await get(url, world.runtimeToken), 403, 'forbidden');
      expectProblem(await call({ method: 'GET', url, token: null }), 401, 'unauthenticated');
      expectProblem(await call({ method: 'GET', url: `${url}?token=${auditor}`, token: null }), 401, 'unauthenticated');
    }
  });

  it("keeps a principal to its own decisions: naming another is 403, a cursor cannot reach alice's", async () => {
    expectProblem(await get(`/v1/decisions?principal_entity_id=${ALICE}`, bob), 403, 'forbidden');
    expectProblem(await get(`/v1/decisions/stats?principal_entity_id=${ALICE}`, bob), 403, 'forbidden');
    // the cursor alice's own pages would carry, and one past every decision: bob still sees only bob's (none)
    const page = await get('/v1/decisions?limit=1');
    for (const cursor of [page.body.next_cursor, Buffer.from('s999999999999999').toString('base64url')]) {
      const res = await get(`/v1/decisions?cursor=${cursor}`, bob);
      expect(res.status, res.text).toBe(200);
      expect(res.body.items).toEqual([]);
    }
    const stats = await get('/v1/decisions/stats', bob);
    expect(stats.body.total).toBe(0);
    const own = await get('/v1/decisions', world.principalToken);
    expect((own.body.items as Json[]).map((d) => d.policy_decision_id)).toEqual(aliceDecisions);
  });

  const bad: Array<[string, string, string]> = [
    ['actor_entity_id=..%2F..%2Fetc', 'invalid_id', '/query/actor_entity_id'],
    ['actor_entity_id=ns:entity:agent:x%00', 'invalid_id', '/query/actor_entity_id'],
    ["actor_entity_id=ns:entity:agent:x'%20or%20'1'='1", 'invalid_id', '/query/actor_entity_id'],
    ['actor_entity_id=ns:entity:agent:%25', 'invalid_id', '/query/actor_entity_id'],
    [`actor_entity_id=ns:entity:agent:${'a'.repeat(200)}`, 'invalid_request', '/query/actor_entity_id'],
    ['reason=%25', 'invalid_request', '/query/reason'],
    ['reason=SCOPE_WITHIN_ATTENUATED_AUTHORITY', 'invalid_request', '/query/reason'],
    ['reason=__proto__', 'invalid_request', '/query/reason'],
    ['reason=constructor', 'invalid_request', '/query/reason'],
    ['decision=allow', 'invalid_request', '/query/decision'],
    ['decision=deny%00', 'invalid_request', '/query/decision'],
    ['since=yesterday', 'invalid_request', '/query/since'],
    ['since=2026-01-01', 'invalid_request', '/query/since'],
    ['since=2026-01-01T00:00:00', 'invalid_request', '/query/since'],
    ['since=2026-13-45T99:99:00Z', 'invalid_request', '/query/since'],
    ['since=2026-01-01T00:00:00%2B99:99', 'invalid_request', '/query/since'],
    ['since=1718000000', 'invalid_request', '/query/since'],
    ['since=-1', 'invalid_request', '/query/since'],
    ['since=%2B275760-09-13T00:00:00Z', 'invalid_request', '/query/since'],
    ['since=9999-12-31T23:00:00-14:00', 'invalid_request', '/query/since'],
    ['until=0000-01-01T00:00:00%2B14:00', 'invalid_request', '/query/until'],
    ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'invalid_request', '/query/until'],
    ['since=2026-01-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'invalid_request', '/query/until'],
    ['limit=0', 'invalid_request', '/query/limit'],
    ['limit=501', 'invalid_request', '/query/limit'],
    ['limit=1e2', 'invalid_request', '/query/limit'],
    ['cursor=czE=', 'invalid_request', '/query/cursor'],
    [`cursor=${Buffer.from('s-5').toString('base64url')}`, 'invalid_request', '/query/cursor'],
    [`cursor=${Buffer.from('s1 union select').toString('base64url')}`, 'invalid_request', '/query/cursor'],
    [`cursor=${Buffer.from('s1234567890123456').toString('base64url')}`, 'invalid_request', '/query/cursor'],
    ['cursor=%F0%9F%92%B3', 'invalid_request', '/query/cursor'],
    ['reason=deny&reason=deny', 'invalid_request', '/query/reason'],
    ['sort=created_at', 'invalid_request', '/query'],
  ];
  it.each(bad)('GET /v1/decisions?%s', async (query, code, path) => {
    expectProblem(await get(`/v1/decisions?${query}`), 400, code, path);
  });

  const badStats: Array<[string, string]> = [
    ['bucket=minute', '/query/bucket'],
    ['bucket=HOUR', '/query/bucket'],
    ['bucket=hour&bucket=day', '/query/bucket'],
    ['limit=5', '/query'],
    ['since=9999-12-31T23:00:00-14:00', '/query/since'],
    ['decision=%27', '/query/decision'],
  ];
  it.each(badStats)('GET /v1/decisions/stats?%s', async (query, path) => {
    expectProblem(await get(`/v1/decisions/stats?${query}`), 400, 'invalid_request', path);
  });

  it('accepts the widest honest range, and a card number anywhere in the url is refused, not echoed', async () => {
    const wide = await get('/v1/decisions?since=0000-01-01T00:00:00Z&until=9999-12-31T23:59:59.999Z');
    expect(wide.status, wide.text).toBe(200);
    expect(wide.body.items).toHaveLength(3);
    // an instant in the future, expressed with an offset: matches nothing (never everything)
    const future = await get('/v1/decisions?since=9999-12-31T00:00:00-09:00');
    expect(future.status, future.text).toBe(200);
    expect(future.body.items).toEqual([]);
    // `_` and `%` are literal ids, compared with `=`, never wildcards
    for (const id of ['ns:entity:person:_', 'ns:entity:agent:shopper_1']) {
      const literal = await get(
        `/v1/decisions?principal_entity_id=${id}&actor_entity_id=${id.replace('person', 'agent')}`,
      );
      expect(literal.status, literal.text).toBe(200);
      expect(literal.body.items).toEqual([]);
    }
    const res = await get(`/v1/decisions?actor_entity_id=ns:entity:agent:${TEST_PAN}`);
    expectProblem(res, 400, 'pan_refused', '/url');
    expect(res.text).not.toContain(TEST_PAN);
  });
});

describe('GET /v1/tokens/self', () => {
  it('names the caller only, never a secret; refuses no token, a revoked one, and a token in the url', async () => {
    const made = (await world.must('POST', '/v1/tokens', { role: 'auditor', label: 'self-test' })) as Json;
    const self = await get('/v1/tokens/self', made.token);
    expect(self.body).toEqual({ token_id: made.token_id, role: 'auditor', principal_entity_id: null });
    expect(self.text).not.toContain(made.token);
    await world.must('DELETE', `/v1/tokens/${made.token_id}`);
    expectProblem(await get('/v1/tokens/self', made.token), 401, 'unauthenticated');
    expectProblem(await call({ method: 'GET', url: '/v1/tokens/self', token: null }), 401, 'unauthenticated');
    expectProblem(
      await call({ method: 'GET', url: `/v1/tokens/self?access_token=${auditor}`, token: null }),
      401,
      'unauthenticated',
    );
    // `self` is not an id an admin can revoke by
    expectProblem(await call({ method: 'DELETE', url: '/v1/tokens/self' }, ADMIN_TOKEN), 400, 'invalid_id');
  });
});

describe('GET /v1/schemas/{name}: public, and never a file outside the schema folder', () => {
  it('the list and a schema are served without a credential', async () => {
    const list = await call({ method: 'GET', url: '/v1/schemas', token: null });
    expect(list.status).toBe(200);
    const one = await call({ method: 'GET', url: '/v1/schemas/ns.webhook.v1', token: null });
    expect(one.status).toBe(200);
    expect(JSON.parse(one.text).$id).toBe('urn:aar:schema:ns.webhook.v1');
  });

  const names: Array<[string, number, string]> = [
    ['..%2F..%2Fpackage.json', 404, 'not_found'],
    ['..%2F..%2F..%2F..%2Fetc%2Fpasswd', 404, 'not_found'],
    ['%2e%2e%2fschemas%2fns.webhook.v1.schema.json', 404, 'not_found'],
    ['ns.webhook.v1.schema.json', 404, 'not_found'],
    ['ns.webhook.v1%00', 404, 'not_found'],
    ['ns.webhook.v1%2F', 404, 'not_found'],
    ['NS.WEBHOOK.V1', 404, 'not_found'],
    ['ns.webhook.v1%20', 404, 'not_found'],
    ['__proto__', 404, 'not_found'],
    ['constructor', 404, 'not_found'],
    ['hasOwnProperty', 404, 'not_found'],
    [`ns.${'a'.repeat(130)}.v1`, 400, 'invalid_request'],
    [`ns.${'a'.repeat(600)}.v1`, 400, 'invalid_request'],
    ['%E0%A4%A', 400, 'invalid_request'],
    [`ns.${TEST_PAN}.v1`, 400, 'pan_refused'],
  ];
  it.each(names)('/v1/schemas/%s', async (name, status, code) => {
    const res = await call({ method: 'GET', url: `/v1/schemas/${name}`, token: null });
    expectProblem(res, status, code);
    expect(res.text).not.toMatch(/root:|"dependencies"|"\$schema"/);
  });
});
