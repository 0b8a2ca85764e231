/**
 * Hostile input against the connector catalogue, marketplace listings and credentials bound to a connector (CONTRACT
 * sections 7 and 15): only an administrator registers listings or binds credentials; every bad field is refused as
 * problem+json naming it, with nothing stored (an attacker choosing its own trust score or signature included);
 * search filters and `min_score` hold their bounds; ids that look like paths never reach a file; the card number
 * guard refuses card numbers without refusing honest ids; a connector-bound credential cannot dodge its
 * Idempotency-Key requirement. Wildcards in `q` on both dialects: test/storage/hostile-text.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectProblem, send, TEST_PAN, type RawRequest } from './hostile-support.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** a connector whose manifest requires idempotency, and one that is deprecated (packages/server/connectors/) */
const IDEMPOTENT_CONNECTOR = 'ns:connector:agents:mcp-tool-server';
const DEPRECATED_CONNECTOR = 'ns:connector:compliance:legacy-leef-forwarder';

let rt: TestRuntime;
const tokens: Record<'runtime' | 'auditor' | 'principal', string> = { runtime: '', auditor: '', principal: '' };

const call = (req: RawRequest, token = ADMIN_TOKEN) => send(rt.app, token, req);
const count = async (table: 'listings' | 'listing_facets' | 'api_tokens' | 'events') =>
  (await rt.ctx.store.db.selectFrom(table).selectAll().execute()).length;
const state = async () => ({
  listings: await count('listings'),
  facets: await count('listing_facets'),
  tokens: await count('api_tokens'),
  events: await count('events'),
});

const agent = (over: Json = {}): Json => ({
  kind: 'agent',
  title: 'Hostile review agent',
  publisher: { name: 'Review Ltd', tier: 'community' },
  sectors: ['retail'],
  regimes: ['eu_ai_act'],
  jurisdictions: ['DE'],
  pricing_model: 'usage',
  ...over,
});

beforeAll(async () => {
  rt = await startTestRuntime();
  const mk = async (body: Json) =>
    (await call({ method: 'POST', url: '/v1/tokens', payload: body })).body.token as string;
  await call({ method: 'POST', url: '/v1/entities', payload: { type: 'person', id: 'alice', display_name: 'Alice' } });
  tokens.runtime = await mk({ role: 'runtime' });
  tokens.auditor = await mk({ role: 'auditor' });
  tokens.principal = await mk({ role: 'principal', principal_entity_id: 'ns:entity:person:alice' });
});
afterAll(async () => rt?.close());

describe('roles', () => {
  it('only an administrator registers a listing or binds a credential to a connector', async () => {
    const before = await state();
    for (const token of Object.values(tokens)) {
      expectProblem(await call({ method: 'POST', url: '/v1/listings', payload: agent() }, token), 403, 'forbidden');
      expectProblem(
        await call(
          { method: 'POST', url: '/v1/tokens', payload: { role: 'auditor', connector_id: IDEMPOTENT_CONNECTOR } },
          token,
        ),
        403,
        'forbidden',
      );
    }
    expectProblem(
      await call({ method: 'POST', url: '/v1/listings', payload: agent(), token: null }),
      401,
      'unauthenticated',
    );
    expect(await state()).toEqual(before);
  });

  it('every role reads the catalogue, listings and its own credential; nobody reads them without a token', async () => {
    const reads = [
      '/v1/connectors',
      `/v1/connectors/${IDEMPOTENT_CONNECTOR}`,
      '/v1/listings/search',
      '/v1/tokens/self',
    ];
    for (const url of reads) {
      expectProblem(await call({ method: 'GET', url, token: null }), 401, 'unauthenticated');
      expectProblem(
        await call({ method: 'GET', url: `${url}?api_key=${ADMIN_TOKEN}`, token: null }),
        401,
        'unauthenticated',
      );
      for (const token of Object.values(tokens))
        expect((await call({ method: 'GET', url }, token)).status, url).toBe(200);
    }
    const self = await call({ method: 'GET', url: '/v1/tokens/self' }, tokens.principal);
    expect(self.body).toMatchObject({ role: 'principal', principal_entity_id: 'ns:entity:person:alice' });
    expect(self.text).not.toContain(tokens.principal);
  });
});

describe('POST /v1/listings refuses bad input, naming the field, storing nothing', () => {
  const long = (n: number) => 'a'.repeat(n);
  const cases: Array<[string, Json, number, string, string]> = [
    ['a number as title', agent({ title: 5 }), 400, 'invalid_request', '/title'],
    ['an empty title', agent({ title: '' }), 400, 'invalid_request', '/title'],
    ['a 201-character title', agent({ title: long(201) }), 400, 'invalid_request', '/title'],
    ['a newline in the title', agent({ title: 'line\nbreak' }), 400, 'invalid_request', '/title'],
    ['a chosen trust score', agent({ trust_score: { score: 100 } }), 400, 'invalid_request', '/trust_score'],
    [
      'a chosen signature',
      agent({ signature: { algorithm: 'ed25519', key_id: 'k', signature: 'x' } }),
      400,
      'invalid_request',
      '/signature',
    ],
    [
      'a chosen registration time',
      agent({ registered_at: '2020-01-01T00:00:00Z' }),
      400,
      'invalid_request',
      '/registered_at',
    ],
    ['an unknown kind', agent({ kind: 'plugin' }), 400, 'invalid_request', '/kind'],
    ['an upper-case pricing model', agent({ pricing_model: 'FREE' }), 400, 'invalid_request', '/pricing_model'],
    ['a made-up tier', agent({ publisher: { name: 'x', tier: 'gold' } }), 400, 'invalid_request', '/publisher/tier'],
    [
      'a self-verified publisher',
      agent({ publisher: { name: 'x', tier: 'community', verified: true } }),
      400,
      'invalid_request',
      '/publisher/verified',
    ],
    ['no publisher', agent({ publisher: undefined }), 400, 'invalid_request', '/publisher'],
    ['sectors as a string', agent({ sectors: 'retail' }), 400, 'invalid_request', '/sectors'],
    ['a number as sector', agent({ sectors: [1] }), 400, 'invalid_request', '/sectors/0'],
    ['an upper-case sector', agent({ sectors: ['Retail'] }), 400, 'invalid_request', '/sectors/0'],
    ['a wildcard sector', agent({ sectors: ['retail%'] }), 400, 'invalid_request', '/sectors/0'],
    ['an accented sector', agent({ sectors: ['rétail'] }), 400, 'invalid_request', '/sectors/0'],
    [
      '33 sectors',
      agent({ sectors: Array.from({ length: 33 }, (_, i) => `s${i}x`) }),
      400,
      'invalid_request',
      '/sectors',
    ],
    ['a lower-case jurisdiction', agent({ jurisdictions: ['de'] }), 400, 'invalid_request', '/jurisdictions/0'],
    ['a made-up jurisdiction', agent({ jurisdictions: ['XX'] }), 400, 'invalid_request', '/jurisdictions/0'],
    ['an alpha-3 jurisdiction', agent({ jurisdictions: ['DEU'] }), 400, 'invalid_request', '/jurisdictions/0'],
    ['a path as listing id', agent({ listing_id: 'ns:listing:../../etc/passwd' }), 400, 'invalid_id', '/listing_id'],
    ['an empty local id', agent({ listing_id: 'ns:listing:' }), 400, 'invalid_id', '/listing_id'],
    ['another kind of id', agent({ listing_id: 'ns:entity:person:alice' }), 400, 'invalid_id', '/listing_id'],
    ['a 161-character id', agent({ listing_id: `ns:listing:${long(150)}` }), 400, 'invalid_request', '/listing_id'],
    ['a NUL in the id', agent({ listing_id: 'ns:listing:a\u0000b' }), 400, 'invalid_request', '/listing_id'],
    ['a card number as id', agent({ listing_id: `ns:listing:${TEST_PAN}` }), 400, 'pan_refused', '/listing_id'],
    ['a card number in the title', agent({ title: `Pay with ${TEST_PAN}` }), 400, 'pan_refused', '/title'],
    [
      'a card number as publisher',
      agent({ publisher: { name: TEST_PAN.replace(/(\d{4})(?=\d)/g, '$1-'), tier: 'community' } }),
      400,
      'pan_refused',
      '/publisher/name',
    ],
    ['a connector listing without connector', agent({ kind: 'connector' }), 400, 'invalid_request', '/connector_id'],
    [
      'an agent listing with a connector',
      agent({ connector_id: IDEMPOTENT_CONNECTOR }),
      400,
      'invalid_request',
      '/connector_id',
    ],
    [
      'a path as connector id',
      agent({ kind: 'connector', connector_id: 'ns:connector:../../package.json' }),
      400,
      'invalid_request',
      '/connector_id',
    ],
    [
      'an unknown connector',
      agent({ kind: 'connector', connector_id: 'ns:connector:agents:nope' }),
      422,
      'reference_not_found',
      '/connector_id',
    ],
    [
      'a deprecated connector',
      agent({ kind: 'connector', connector_id: DEPRECATED_CONNECTOR }),
      422,
      'reference_invalid',
      '/connector_id',
    ],
    ['a malformed report id', agent({ conformance_report_id: 'x' }), 400, 'invalid_id', '/conformance_report_id'],
    [
      'a report that does not exist',
      agent({ conformance_report_id: 'ns:conformance_report:0190c5a8-7a5e-7000-8000-000000000001' }),
      422,
      'reference_not_found',
      '/conformance_report_id',
    ],
    [
      'an unknown profile',
      agent({ declared_profiles: ['ns.fake.v1'] }),
      400,
      'invalid_request',
      '/declared_profiles/0',
    ],
    [
      '17 profiles',
      agent({ declared_profiles: Array(17).fill('ns.core.v1') }),
      400,
      'invalid_request',
      '/declared_profiles',
    ],
  ];

  it.each(cases)('%s', async (_name, payload, status, code, path) => {
    const before = await state();
    expectProblem(await call({ method: 'POST', url: '/v1/listings', payload }), status, code, path);
    expect(await state()).toEqual(before);
  });

  it('keeps honest values the card guard must not mistake: uuid and 128-character ids, digests, versions, percentages', async () => {
    const honest: Json[] = [
      agent({ listing_id: 'ns:listing:0190c5a8-7a5e-7000-8000-000000000001' }),
      agent({
        title: 'Build e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 at 10.0.0.1, 100% audited',
      }),
      agent({ title: 'Release 2026.04.15, 1718000000.123456 s' }),
      agent({ listing_id: `ns:listing:${'x'.repeat(128)}` }),
    ];
    for (const payload of honest) {
      const res = await call({ method: 'POST', url: '/v1/listings', payload });
      expect(res.status, res.text.slice(0, 300)).toBe(201);
      // the id comes back readable, whatever its length (a path parameter above 100 characters used to be 414)
      const read = await call({ method: 'GET', url: `/v1/listings/${res.body.listing_id}` });
      expect(read.status, read.text.slice(0, 300)).toBe(200);
      expect(read.body.listing_id).toBe(res.body.listing_id);
    }
  });

  it('a taken id is 409 and changes nothing; a replay under the same Idempotency-Key answers the first', async () => {
    const first = await call({
      method: 'POST',
      url: '/v1/listings',
      payload: agent({ listing_id: 'ns:listing:once' }),
      headers: { 'idempotency-key': 'listing-once' },
    });
    expect(first.status).toBe(201);
    const before = await state();
    expectProblem(
      await call({
        method: 'POST',
        url: '/v1/listings',
        payload: agent({ listing_id: 'ns:listing:once', title: 'other' }),
      }),
      409,
      'conflict',
      '/listing_id',
    );
    const replay = await call({
      method: 'POST',
      url: '/v1/listings',
      payload: agent({ listing_id: 'ns:listing:once' }),
      headers: { 'idempotency-key': 'listing-once' },
    });
    expect(replay.text).toBe(first.text);
    expectProblem(
      await call({
        method: 'POST',
        url: '/v1/listings',
        payload: agent({ listing_id: 'ns:listing:twice' }),
        headers: { 'idempotency-key': 'listing-once' },
      }),
      422,
      'idempotency_key_reused',
    );
    expect(await state()).toEqual(before);
  });
});

describe('GET /v1/listings/search holds its bounds', () => {
  const bad: Array<[string, string]> = [
    ['min_score=101', '/query/min_score'],
    ['min_score=-1', '/query/min_score'],
    ['min_score=1.5', '/query/min_score'],
    ['min_score=1e2', '/query/min_score'],
    ['min_score=050', '/query/min_score'],
    ['min_score=%2050', '/query/min_score'],
    ['min_score=50abc', '/query/min_score'],
    ['min_score=NaN', '/query/min_score'],
    ['min_score=', '/query/min_score'],
    ['min_score=9007199254740993', '/query/min_score'],
    ['limit=0', '/query/limit'],
    ['limit=501', '/query/limit'],
    ['limit=-1', '/query/limit'],
    ['limit=1.0', '/query/limit'],
    ['limit=99999', '/query/limit'],
    ['sector=Retail', '/query/sector'],
    ['sector=retail%25', '/query/sector'],
    ['jurisdiction=de', '/query/jurisdiction'],
    ['pricing_model=gratis', '/query/pricing_model'],
    ['publisher_tier=gold', '/query/publisher_tier'],
    ['q=', '/query/q'],
    [`q=${'a'.repeat(101)}`, '/query/q'],
    ['q=a%0Ab', '/query/q'],
    ['q=a&q=b', '/query/q'],
    ['min_score=1&min_score=2', '/query/min_score'],
    ['owner=admin', '/query'],
    ['cursor=%27%20or%201%3D1', '/query/cursor'],
  ];
  it.each(bad)('%s', async (query, path) => {
    expectProblem(
      await call({ method: 'GET', url: `/v1/listings/search?${query}` }, tokens.runtime),
      400,
      'invalid_request',
      path,
    );
  });

  it('refuses a card number in `q` (naming the url, never echoing it) and accepts both ends of min_score', async () => {
    const res = await call({ method: 'GET', url: `/v1/listings/search?q=${TEST_PAN}` }, tokens.runtime);
    expectProblem(res, 400, 'pan_refused', '/url');
    expect(res.text).not.toContain(TEST_PAN);
    for (const score of ['0', '100']) {
      const ok = await call({ method: 'GET', url: `/v1/listings/search?min_score=${score}` }, tokens.runtime);
      expect(ok.status, ok.text.slice(0, 200)).toBe(200);
      for (const l of ok.body.items as Json[]) expect(l.trust_score.score).toBeGreaterThanOrEqual(Number(score));
    }
  });
});

describe('the connector catalogue: ids never reach a file, filters are closed sets', () => {
  const ids = [
    'ns:connector:..%2F..%2F..%2Fpackage.json',
    '..%2F..%2Fconnectors%2Fagents%2Fmcp-tool-server.json',
    'ns:connector:agents:mcp-tool-server.json',
    'ns:connector:agents:MCP-TOOL-SERVER',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'ns:connector:agents:mcp-tool-server%00',
  ];
  it.each(ids)('GET /v1/connectors/%s', async (id) => {
    const res = await call({ method: 'GET', url: `/v1/connectors/${id}` }, tokens.auditor);
    expect([400, 404], res.text).toContain(res.status);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.text).not.toMatch(/"version":|"dependencies"/);
  });

  const filters = [
    'family=..%2F',
    'family=Agents',
    'connector_type=x',
    'status=live',
    'profile=ns.fake.v1',
    'secret=1',
  ];
  it.each(filters)('GET /v1/connectors?%s', async (query) => {
    const res = await call({ method: 'GET', url: `/v1/connectors?${query}` }, tokens.auditor);
    expectProblem(res, 400, 'invalid_request', '/query');
  });
});

describe('POST /v1/tokens with connector_id', () => {
  const cases: Array<[string, Json, number, string, string]> = [
    ['a number', { role: 'auditor', connector_id: 5 }, 400, 'invalid_request', '/connector_id'],
    ['a path', { role: 'auditor', connector_id: 'ns:connector:../../x' }, 400, 'invalid_request', '/connector_id'],
    [
      'upper case family',
      { role: 'auditor', connector_id: 'ns:connector:Agents:x' },
      400,
      'invalid_request',
      '/connector_id',
    ],
    [
      '201 characters',
      { role: 'auditor', connector_id: `ns:connector:agents:${'x'.repeat(182)}` },
      400,
      'invalid_request',
      '/connector_id',
    ],
    [
      'not in the catalogue',
      { role: 'auditor', connector_id: 'ns:connector:agents:nope' },
      422,
      'reference_not_found',
      '/connector_id',
    ],
    ['deprecated', { role: 'auditor', connector_id: DEPRECATED_CONNECTOR }, 422, 'reference_invalid', '/connector_id'],
    ['a made-up role', { role: 'superadmin', connector_id: IDEMPOTENT_CONNECTOR }, 400, 'invalid_request', '/role'],
    ['an upper-case role', { role: 'ADMIN' }, 400, 'invalid_request', '/role'],
    [
      'an extra member',
      { role: 'auditor', connector_id: IDEMPOTENT_CONNECTOR, scopes: ['*'] },
      400,
      'invalid_request',
      '/scopes',
    ],
    ['a chosen secret', { role: 'auditor', token: 'aar_mine' }, 400, 'invalid_request', '/token'],
    ['a label with a card number', { role: 'auditor', label: `card ${TEST_PAN}` }, 400, 'pan_refused', '/label'],
  ];
  it.each(cases)('%s', async (_name, payload, status, code, path) => {
    const before = await state();
    expectProblem(await call({ method: 'POST', url: '/v1/tokens', payload }), status, code, path);
    expect(await state()).toEqual(before);
  });

  it('a bound credential cannot dodge its Idempotency-Key: absent, in the query, blank or malformed are all refused', async () => {
    const bound = (
      await call({
        method: 'POST',
        url: '/v1/tokens',
        payload: { role: 'auditor', connector_id: IDEMPOTENT_CONNECTOR },
      })
    ).body;
    expect(bound.connector_id).toBe(IDEMPOTENT_CONNECTOR);
    const verify = (headers: Record<string, string> = {}, url = '/v1/bundles/verify') =>
      call({ method: 'POST', url, payload: { bundle: {} }, headers }, bound.token);
    expectProblem(await verify(), 400, 'idempotency_key_required', '/headers/idempotency-key');
    expectProblem(await verify({}, '/v1/bundles/verify?idempotency_key=k1'), 400, 'idempotency_key_required');
    for (const key of ['', ' ', 'a b', 'ü', 'k'.repeat(256)]) {
      expectProblem(await verify({ 'idempotency-key': key }), 400, 'invalid_request', '/headers/idempotency-key');
    }
    expectProblem(await verify({ 'idempotency-key': `k-${TEST_PAN}` }), 400, 'pan_refused', '/headers/idempotency-key');
    const ok = await verify({ 'Idempotency-Key': 'bound-1' });
    expect(ok.status, ok.text.slice(0, 200)).toBe(200);
    // an unbound credential of the same role needs none
    expect(
      (await call({ method: 'POST', url: '/v1/bundles/verify', payload: { bundle: {} } }, tokens.auditor)).status,
    ).toBe(200);
  });
});
