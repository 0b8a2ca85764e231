/**
 * Issue 26: one body shape for both verify routes, `{ "pack": … }` and `{ "bundle": … }`. The pack as the whole body
 * (0.x) keeps working, deprecated on the wire (docs/versioning.md): its answers alone carry `Deprecation`
 * (RFC 9745, `@<unix seconds>`), `Sunset` (RFC 8594, an HTTP-date) and `Link: rel="deprecation"`, and the OpenAPI
 * document marks that alternative of the request body `deprecated: true`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSIONING_DOC_URL } from '../../src/http/deprecation.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let rt: TestRuntime;
let pack: Json;
let bundle: Json;
let auditor: string;

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  const decided = await world.authorize(world.purchase(10));
  expect(decided.status).toBe(200);
  const packId = (decided.body.evidence_refs as string[]).find((ref) => ref.startsWith('ns:evidence-pack:'))!;
  pack = (await world.call('GET', `/v1/evidence-packs/${packId}`)).body as Json;
  bundle = await world.must('POST', '/v1/bundles/assemble', { policy_decision_id: decided.body.policy_decision_id });
  auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token as string;
});
afterAll(async () => rt?.close());

async function post(url: string, payload: unknown, headers: Record<string, string> = {}) {
  return rt.app.inject({
    method: 'POST',
    url,
    headers: { ...auth(auditor), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
  });
}

const DEPRECATION_HEADERS = ['deprecation', 'sunset', 'link'] as const;

describe('one shape: { pack } and { bundle }', () => {
  it('POST /v1/evidence-packs/verify { pack } verifies, with no deprecation header', async () => {
    const res = await post('/v1/evidence-packs/verify', { pack });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: true });
    for (const name of DEPRECATION_HEADERS) expect(res.headers[name]).toBeUndefined();
  });

  it('POST /v1/bundles/verify { bundle } verifies, with no deprecation header', async () => {
    const res = await post('/v1/bundles/verify', { bundle });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: true });
    for (const name of DEPRECATION_HEADERS) expect(res.headers[name]).toBeUndefined();
  });

  it('a damaged pack in the new shape is judged, not refused', async () => {
    const damaged = { ...pack, request: { ...pack.request, subject: 'ns:capability:x:y' } };
    const res = await post('/v1/evidence-packs/verify', { pack: damaged });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: false });
  });

  it.each([
    [{ pack: 'not a pack' }, '/pack'],
    [{ pack: [] }, '/pack'],
    [{ pack: null }, '/pack'],
    [{ pack: {}, jwks: { keys: [] } }, '/jwks'],
  ])('a malformed { pack } body is 400 naming the member', async (body, path) => {
    const res = await post('/v1/evidence-packs/verify', body);
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>().errors[0].path).toBe(path);
  });
});

describe('the bare pack still works, deprecated on the wire', () => {
  it('verifies the same, with Deprecation, Sunset and Link rel="deprecation"', async () => {
    const bare = await post('/v1/evidence-packs/verify', pack);
    const wrapped = await post('/v1/evidence-packs/verify', { pack });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toEqual(wrapped.json());

    const deprecation = String(bare.headers.deprecation);
    // RFC 9745: an sf-date, `@` and integer seconds since the epoch
    expect(deprecation).toMatch(/^@\d{10}$/);
    expect(deprecation).toBe('@1795824000'); // 2026-11-28, release 1.0.0
    // RFC 8594: an IMF-fixdate, at least 12 months (a major's spacing) after the deprecation
    const sunset = String(bare.headers.sunset);
    expect(sunset).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(sunset).toBe('Sun, 28 Nov 2027 00:00:00 GMT');
    expect(Date.parse(sunset) / 1000 - Number(deprecation.slice(1))).toBeGreaterThanOrEqual(365 * 24 * 3600);
    expect(bare.headers.link).toBe(`<${VERSIONING_DOC_URL}>; rel="deprecation"; type="text/markdown"`);
    expect(VERSIONING_DOC_URL).toMatch(/\/docs\/versioning\.md#deprecated-forms$/);
  });

  it('a bare damaged pack is judged too, still with the headers', async () => {
    const res = await post('/v1/evidence-packs/verify', { ...pack, signature: { ...pack.signature, value: 'AAAA' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: false });
    expect(res.headers.deprecation).toBe('@1795824000');
  });

  it('an Idempotency-Key replay of a bare verify says it is deprecated too', async () => {
    const first = await post('/v1/evidence-packs/verify', pack, { 'idempotency-key': 'bare-verify-1' });
    const replay = await post('/v1/evidence-packs/verify', pack, { 'idempotency-key': 'bare-verify-1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    for (const name of DEPRECATION_HEADERS) expect(replay.headers[name]).toBe(first.headers[name]);
  });
});

describe('the OpenAPI document', () => {
  it('marks the bare pack deprecated, and neither the operation nor the { pack } shape', async () => {
    const doc = (await rt.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Json>();
    const operation = doc.paths['/v1/evidence-packs/verify'].post;
    expect(operation.deprecated).toBeUndefined();
    const schema = operation.requestBody.content['application/json'].schema as Json;
    const alternatives = (schema.anyOf ?? schema.oneOf) as Json[];
    expect(alternatives).toHaveLength(2);
    const wrapped = alternatives.find((a) => a.properties?.pack !== undefined)!;
    const bare = alternatives.find((a) => a !== wrapped)!;
    expect(wrapped.required).toEqual(['pack']);
    expect(wrapped.deprecated).toBeUndefined();
    expect(bare.deprecated).toBe(true);
    expect(bare.description).toMatch(/\{ "pack": … \}/);
    const bundles = doc.paths['/v1/bundles/verify'].post.requestBody.content['application/json'].schema as Json;
    expect(bundles.required).toContain('bundle');
  });
});
