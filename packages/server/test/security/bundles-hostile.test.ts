/**
 * Hostile input against the proof bundle routes (CONTRACT sections 7 and 12): who may call them, what a refusal looks
 * like (problem+json naming the field, no bundle stored), path parameters that try to leave the part list, and
 * POST /v1/bundles/verify fed attacker-chosen keys and garbage. The verification answer carries OUR signature, so its
 * trust anchor must be a key this service chose: a bundle signed by someone else's key, judged by the JWKS they send
 * along, must never come back `valid` (services/bundles/trusted-keys.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_CHECKS, verifyDocument, type Jwks } from '@aar/core';
import { narrowToOwnKeys } from '../../src/services/bundles/trusted-keys.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectProblem, nestedJson, send, TEST_PAN, type RawRequest } from './hostile-support.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const vector = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../../vectors/bundles/${name}.json`, import.meta.url), 'utf8')) as Json;

let rt: TestRuntime;
let w: DelegationWorld;
let ownJwks: Jwks;
let auditor: string;
let runtime: string;
let decisionId: string;
let genuine: Json;

const call = (req: RawRequest, token = auditor) => send(rt.app, token, req);
const countBundles = async () => (await rt.ctx.store.db.selectFrom('bundles').select('bundle_id').execute()).length;

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  w = await buildDelegationWorld(base, ADMIN_TOKEN);
  ownJwks = (await w.must('GET', '/.well-known/jwks.json')) as Jwks;
  auditor = (await w.must('POST', '/v1/tokens', { role: 'auditor' })).token;
  runtime = w.runtimeToken;
  await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:shopper-1', {
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  });
  const allowed = (await w.authorize('shopper-1', w.purchase('shopper-1', 30))).body;
  expect(allowed.decision).toBe('allow_with_constraints');
  decisionId = allowed.policy_decision_id;
  const made = await call({ method: 'POST', url: '/v1/bundles/assemble', payload: { policy_decision_id: decisionId } });
  expect(made.status, made.text).toBe(201);
  genuine = made.body;
});
afterAll(async () => rt?.close());

/** `text` (base64url) in the standard base64 alphabet, always differing from it in at least one character. */
function standardAlphabet(text: string): string {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  return standard !== text ? standard : `+${text.slice(1)}`;
}

describe('who may call the bundle routes', () => {
  const routes = (): RawRequest[] => [
    { method: 'POST', url: '/v1/bundles/assemble', payload: { policy_decision_id: decisionId } },
    { method: 'GET', url: `/v1/bundles/${genuine.bundle_id}` },
    { method: 'GET', url: `/v1/bundles/${genuine.bundle_id}/parts/decision_map` },
    { method: 'POST', url: '/v1/bundles/verify', payload: { bundle: genuine } },
  ];

  it('refuses every route without a token, with a malformed one, a revoked one, or one in the query string', async () => {
    const revoked = (await w.must('POST', '/v1/tokens', { role: 'auditor' })) as Json;
    await w.must('DELETE', `/v1/tokens/${revoked.token_id}`);
    const before = await countBundles();
    for (const route of routes()) {
      expectProblem(await call({ ...route, token: null }), 401, 'unauthenticated');
      expectProblem(
        await call({ ...route, token: null, headers: { authorization: `Basic ${auditor}` } }),
        401,
        'unauthenticated',
      );
      expectProblem(await call(route, 'aar_not-a-token-of-this-service'), 401, 'unauthenticated');
      expectProblem(await call(route, revoked.token), 401, 'unauthenticated');
      const sep = route.url.includes('?') ? '&' : '?';
      expectProblem(
        await call({ ...route, url: `${route.url}${sep}access_token=${auditor}`, token: null }),
        401,
        'unauthenticated',
      );
    }
    expect(await countBundles()).toBe(before);
  });

  it('accepts the scheme in lowercase (`bearer`), as RFC 7235 makes it case-insensitive', async () => {
    const res = await call({
      method: 'GET',
      url: `/v1/bundles/${genuine.bundle_id}`,
      token: null,
      headers: { authorization: `bearer ${auditor}` },
    });
    expect(res.status, res.text).toBe(200);
  });

  it("keeps a principal to its own principal's decisions: bob can neither assemble nor read alice's", async () => {
    const before = await countBundles();
    const assembled = await call(
      { method: 'POST', url: '/v1/bundles/assemble', payload: { policy_decision_id: decisionId } },
      w.bobToken,
    );
    expect([403, 404], assembled.text).toContain(assembled.status);
    expectProblem(assembled, assembled.status, assembled.status === 403 ? 'forbidden' : 'not_found');
    for (const url of [`/v1/bundles/${genuine.bundle_id}`, `/v1/bundles/${genuine.bundle_id}/parts/evidence_pack`]) {
      const read = await call({ method: 'GET', url }, w.bobToken);
      expect([403, 404], read.text).toContain(read.status);
      expect(read.text).not.toContain(decisionId);
    }
    expect(await countBundles()).toBe(before);
    // alice's own credential may
    const own = await call({ method: 'GET', url: `/v1/bundles/${genuine.bundle_id}` }, w.aliceToken);
    expect(own.status, own.text).toBe(200);
  });
});

describe('POST /v1/bundles/assemble refuses bad input, naming the field, storing nothing', () => {
  const bad: Array<[string, unknown, number, string, string]> = [
    ['no decision id', {}, 400, 'invalid_request', '/policy_decision_id'],
    ['a number', { policy_decision_id: 42 }, 400, 'invalid_request', '/policy_decision_id'],
    ['an array', { policy_decision_id: ['ns:decision:x'] }, 400, 'invalid_request', '/policy_decision_id'],
    ['null', { policy_decision_id: null }, 400, 'invalid_request', '/policy_decision_id'],
    ['an empty id', { policy_decision_id: '' }, 400, 'invalid_id', '/policy_decision_id'],
    [
      '257 characters',
      { policy_decision_id: `ns:decision:${'a'.repeat(245)}` },
      400,
      'invalid_request',
      '/policy_decision_id',
    ],
    ['a path', { policy_decision_id: 'ns:decision:../../../etc/passwd' }, 400, 'invalid_id', '/policy_decision_id'],
    [
      'another kind of id',
      { policy_decision_id: 'ns:bundle:0190c5a8-7a5e-7000-8000-000000000001' },
      400,
      'invalid_id',
      '/policy_decision_id',
    ],
    [
      'a NUL byte',
      { policy_decision_id: 'ns:decision:0190c5a8-7a5e-7000-8000-00000000000\u0000' },
      400,
      'invalid_request',
      '/policy_decision_id',
    ],
    [
      'full-width digits',
      { policy_decision_id: 'ns:decision:０190c5a8-7a5e-7000-8000-000000000001' },
      400,
      'invalid_id',
      '/policy_decision_id',
    ],
    ['a card number', { policy_decision_id: `ns:decision:${TEST_PAN}` }, 400, 'pan_refused', '/policy_decision_id'],
    ['an extra member', { policy_decision_id: 'x', bundle_id: 'ns:bundle:mine' }, 400, 'invalid_request', '/bundle_id'],
    [
      '__proto__',
      JSON.parse('{"policy_decision_id":"x","__proto__":{"admin":true}}'),
      400,
      'invalid_json',
      '/__proto__',
    ],
    ['purpose not an object', { policy_decision_id: 'x', purpose: 'chargeback' }, 400, 'invalid_request', '/purpose'],
    ['purpose without purpose', { policy_decision_id: 'x', purpose: {} }, 400, 'invalid_request', '/purpose/purpose'],
    [
      'an empty purpose',
      { policy_decision_id: 'x', purpose: { purpose: '' } },
      400,
      'invalid_request',
      '/purpose/purpose',
    ],
    [
      'a 201-character purpose',
      { policy_decision_id: 'x', purpose: { purpose: 'p'.repeat(201) } },
      400,
      'invalid_request',
      '/purpose/purpose',
    ],
    [
      'a number as ticket',
      { policy_decision_id: 'x', purpose: { purpose: 'p', ticket: 7 } },
      400,
      'invalid_request',
      '/purpose/ticket',
    ],
    [
      'an extra purpose member',
      { policy_decision_id: 'x', purpose: { purpose: 'p', signed_by: 'me' } },
      400,
      'invalid_request',
      '/purpose/signed_by',
    ],
    [
      'a card number as ticket',
      {
        policy_decision_id: 'x',
        purpose: { purpose: 'p', ticket: `CASE ${TEST_PAN.replace(/(\d{4})/g, '$1 ').trim()}` },
      },
      400,
      'pan_refused',
      '/purpose/ticket',
    ],
    [
      'a full-width card number',
      { policy_decision_id: 'x', purpose: { purpose: '４１１１１１１１１１１１１１１１' } },
      400,
      'pan_refused',
      '/purpose/purpose',
    ],
  ];

  it.each(bad)('%s', async (_name, payload, status, code, path) => {
    const before = await countBundles();
    expectProblem(await call({ method: 'POST', url: '/v1/bundles/assemble', payload }), status, code, path);
    expect(await countBundles()).toBe(before);
  });

  const raw: Array<[string, string | Buffer, number, string]> = [
    ['duplicate keys', `{"policy_decision_id":"x","policy_decision_id":"${'y'}"}`, 400, 'invalid_json'],
    ['a BOM', `\ufeff{"policy_decision_id":"x"}`, 400, 'invalid_json'],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('{"policy_decision_id":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
      400,
      'invalid_json',
    ],
    ['a lone surrogate', '{"policy_decision_id":"\\ud800"}', 400, 'invalid_json'],
    ['2^53 + 1', '{"policy_decision_id":9007199254740993}', 400, 'invalid_json'],
    ['1e400', '{"policy_decision_id":1e400}', 400, 'invalid_json'],
    ['10,000-deep nesting', `{"policy_decision_id":${nestedJson(10_000)}}`, 400, 'invalid_json'],
    ['not an object', '["policy_decision_id"]', 400, 'invalid_json'],
    ['an empty body', '', 400, 'invalid_json'],
    ['truncated', '{"policy_decision_id":"x"', 400, 'invalid_json'],
  ];

  it.each(raw)('%s', async (_name, payload, status, code) => {
    const before = await countBundles();
    expectProblem(await call({ method: 'POST', url: '/v1/bundles/assemble', payload }), status, code);
    expect(await countBundles()).toBe(before);
  });

  it('refuses other media types and charsets (415), and an unknown decision (404), storing nothing', async () => {
    const before = await countBundles();
    const body = JSON.stringify({ policy_decision_id: decisionId });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) {
      expectProblem(
        await call({ method: 'POST', url: '/v1/bundles/assemble', payload: body, headers: { 'content-type': type } }),
        415,
        'unsupported_media_type',
      );
    }
    const unknown = decisionId.replace(/[0-9a-f]{12}$/, '000000000000');
    expectProblem(
      await call({ method: 'POST', url: '/v1/bundles/assemble', payload: { policy_decision_id: unknown } }),
      404,
      'not_found',
    );
    expect(await countBundles()).toBe(before);
  });

  it('keeps hostile but harmless text as it is: right-to-left override, NFD, emoji; the bundle still verifies', async () => {
    const ticket = 'CASE-\u202egnp.exe-e\u0301-\u{1F4B3}';
    const made = await call({
      method: 'POST',
      url: '/v1/bundles/assemble',
      payload: { policy_decision_id: decisionId, purpose: { purpose: 'chargeback_dispute', ticket } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.purpose_manifest.ticket).toBe(ticket);
    const read = await call({ method: 'GET', url: `/v1/bundles/${made.body.bundle_id}` });
    expect(read.text).toBe(made.text);
    const verified = await call({ method: 'POST', url: '/v1/bundles/verify', payload: { bundle: made.body } });
    expect(verified.body.valid, verified.text).toBe(true);
  });
});

describe('GET /v1/bundles/{id} and its parts: path parameters cannot leave the part list', () => {
  const badIds = [
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    'ns:bundle:..%2F..%2Fpackage.json',
    'ns:bundle:0190c5a8-7a5e-7000-8000-00000000000%00',
    `ns:bundle:${'a'.repeat(300)}`,
    'ns:decision:0190c5a8-7a5e-7000-8000-000000000001',
    `ns:bundle:${TEST_PAN}`,
  ];
  it.each(badIds)('bundle id %s', async (id) => {
    const res = await call({ method: 'GET', url: `/v1/bundles/${id}` });
    expect([400, 404], res.text).toContain(res.status);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.text).not.toMatch(/root:|"name": ?"@aar/);
  });

  const badParts = [
    '..%2F..%2F..%2Fpackage.json',
    '..%2f..%2fschemas%2fns.webhook.v1.schema.json',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '__proto__',
    'constructor',
    'toString',
    'signature',
    'references',
    'bundle_id',
    'DECISION_MAP',
    'decision_map%00',
    'decision_map%2F..',
    'decision_map.json',
    'evidence_pack%20',
  ];
  it.each(badParts)('part name %s', async (name) => {
    const res = await call({ method: 'GET', url: `/v1/bundles/${genuine.bundle_id}/parts/${name}` });
    expect([400, 404], res.text).toContain(res.status);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.text).not.toMatch(/root:|"name": ?"@aar|\$schema/);
  });

  it('a URL the router cannot read is refused as problem+json naming the URL, not in Fastify’s own shape', async () => {
    for (const url of [
      `/v1/bundles/ns:bundle:${'a'.repeat(600)}`,
      `/v1/bundles/${genuine.bundle_id}/parts/${'p'.repeat(600)}`,
      '/v1/bundles/ns:bundle:%E0%A4%A',
      `/v1/bundles/${genuine.bundle_id}/parts/%FF%FE`,
    ]) {
      expectProblem(await call({ method: 'GET', url }), 400, 'invalid_request', '/url');
    }
  });

  it('an unknown bundle of a well-formed id is 404, and a known part serves exactly that part', async () => {
    const unknown = genuine.bundle_id.replace(/[0-9a-f]{12}$/, '000000000000');
    expectProblem(await call({ method: 'GET', url: `/v1/bundles/${unknown}` }), 404, 'not_found');
    expectProblem(await call({ method: 'GET', url: `/v1/bundles/${unknown}/parts/decision_map` }), 404, 'not_found');
    const part = await call({ method: 'GET', url: `/v1/bundles/${genuine.bundle_id}/parts/decision_map` });
    expect(part.body).toEqual(genuine.decision_map);
  });
});

describe('POST /v1/bundles/verify: the trust anchor is a key this service chose', () => {
  const verify = (payload: unknown, token = auditor) =>
    call({ method: 'POST', url: '/v1/bundles/verify', payload }, token);

  it('never answers `valid` for a bundle signed by a foreign key, judged by the JWKS that came with it', async () => {
    // a real bundle, assembled by another deployment with its own key; every one of its ten checks passes offline
    // against that deployment's JWKS. Sent here with that JWKS, it must not earn our signature on `valid: true`.
    const foreign = vector('valid-delegated-purchase');
    const res = await verify({ bundle: foreign.input.bundle, jwks: foreign.input.jwks });
    expectProblem(res, 422, 'reference_invalid', '/jwks/keys/0');
    // without a jwks it is judged by our keys: not signed by one of them
    const ours = await verify({ bundle: foreign.input.bundle });
    expect(ours.status).toBe(200);
    expect(ours.body.valid).toBe(false);
    expect(ours.body.checks.find((c: Json) => c.name === 'bundle_signature')).toMatchObject({ ok: false });
  });

  it('refuses an attacker key under our own kid, and any key among ours that is not ours', async () => {
    const ownKey = ownJwks.keys[0]!;
    const attacker = { ...ownKey, x: vector('valid-denied-purchase').input.jwks.keys[0].x };
    expectProblem(
      await verify({ bundle: genuine, jwks: { keys: [attacker] } }),
      422,
      'reference_invalid',
      '/jwks/keys/0',
    );
    expectProblem(
      await verify({ bundle: genuine, jwks: { keys: [ownKey, attacker] } }),
      422,
      'reference_invalid',
      '/jwks/keys/1',
    );
    const { kid: _kid, ...withoutKid } = ownKey;
    expectProblem(
      await verify({ bundle: genuine, jwks: { keys: [withoutKid] } }),
      422,
      'reference_invalid',
      '/jwks/keys/0',
    );
  });

  it('lets `jwks` narrow our own keys, judged with OUR copy of each (a dropped valid_until is not believed)', async () => {
    const ownKey = ownJwks.keys[0]!;
    const res = await verify({ bundle: genuine, jwks: { keys: [ownKey] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.valid).toBe(true);
    expect((await verifyDocument(res.body, ownJwks)).valid).toBe(true);
    // none of our keys: nothing is trusted, nothing verifies
    const none = await verify({ bundle: genuine, jwks: { keys: [] } });
    expect(none.body.valid).toBe(false);
    // pure: the copy used is ours, with the validity period we published
    const own: Jwks = {
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          x: ownKey.x,
          kid: 'k1',
          valid_from: '2026-01-01T00:00:00Z',
          valid_until: '2026-02-01T00:00:00Z',
        },
      ],
    };
    const narrowed = narrowToOwnKeys(own, { keys: [{ kty: 'OKP', crv: 'Ed25519', x: ownKey.x, kid: 'k1' }] });
    expect(narrowed.keys).toEqual(own.keys);
  });

  it('answers a signed, ten-check `valid: false` (never a 500) for garbage shaped like a bundle', async () => {
    const sigOf = (signature: Json) => ({ ...genuine, signature: { ...genuine.signature, ...signature } });
    const zeros = 'A'.repeat(86);
    const hostile: Array<[string, unknown]> = [
      ['an empty object', {}],
      ['only a schema_version', { schema_version: 'ns.authority_proof_bundle.v1' }],
      ['every part null', Object.fromEntries(Object.keys(genuine).map((k) => [k, null]))],
      ['every part a string', Object.fromEntries(Object.keys(genuine).map((k) => [k, 'x']))],
      ['every part an array', Object.fromEntries(Object.keys(genuine).map((k) => [k, []]))],
      ['a 63-byte signature', sigOf({ signature: zeros.slice(0, 84) })],
      ['a 65-byte signature', sigOf({ signature: `${genuine.signature.signature}AA` })],
      ['an all-zero signature', sigOf({ signature: zeros })],
      [
        'a base64 (not url) signature',
        // the same bytes in the standard alphabet; a signature with neither `-` nor `_` (about 1 in 15) reads the
        // same in both, so one character of the standard alphabet's own is put in its place
        sigOf({ signature: standardAlphabet(genuine.signature.signature) }),
      ],
      ['a padded signature', sigOf({ signature: `${genuine.signature.signature}==` })],
      ['algorithm none', sigOf({ algorithm: 'none' })],
      ['algorithm HS256', sigOf({ algorithm: 'HS256' })],
      ['a path as key id', sigOf({ key_id: '../../keys/current.json' })],
      ['an embedded jwk', sigOf({ jwk: vector('valid-denied-purchase').input.jwks.keys[0] })],
      [
        'references of another bundle',
        { ...genuine, references: vector('valid-delegated-purchase').input.bundle.references },
      ],
      [
        'a 12,000-entry inclusion path',
        { ...genuine, inclusion_proof: { ...genuine.inclusion_proof, path: Array(12_000).fill('0'.repeat(64)) } },
      ],
      ['a huge index', { ...genuine, inclusion_proof: { ...genuine.inclusion_proof, leaf_index: 9007199254740991 } }],
      ['a negative index', { ...genuine, inclusion_proof: { ...genuine.inclusion_proof, leaf_index: -1 } }],
      ['a float index', { ...genuine, inclusion_proof: { ...genuine.inclusion_proof, leaf_index: 1.5 } }],
    ];
    for (const [name, bundle] of hostile) {
      const res = await verify({ bundle });
      expect(res.status, `${name}: ${res.text.slice(0, 300)}`).toBe(200);
      expect(res.body.valid, name).toBe(false);
      expect(
        res.body.checks.map((c: Json) => c.name),
        name,
      ).toEqual([...BUNDLE_CHECKS]);
      expect((await verifyDocument(res.body, ownJwks)).valid, name).toBe(true);
    }
  });

  it('judges a delegation chain of as many links as the body limit holds as invalid, without failing', async () => {
    const link = genuine.delegation_chain.links[0];
    const room = rt.ctx.config.bodyLimit - JSON.stringify(genuine).length - 1024;
    const count = Math.floor(room / (JSON.stringify(link).length + 1));
    expect(count).toBeGreaterThan(500);
    const links = Array.from({ length: count }, () => link);
    const res = await verify({ bundle: { ...genuine, delegation_chain: { ...genuine.delegation_chain, links } } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.valid).toBe(false);
  });

  it('refuses what is not a bundle to judge, naming the field', async () => {
    const cases: Array<[unknown, number, string, string]> = [
      [{}, 400, 'invalid_request', '/bundle'],
      [{ bundle: [] }, 400, 'invalid_request', '/bundle'],
      [{ bundle: 'x' }, 400, 'invalid_request', '/bundle'],
      [{ bundle: null }, 400, 'invalid_request', '/bundle'],
      [{ bundle: genuine, extra: 1 }, 400, 'invalid_request', '/extra'],
      [{ bundle: genuine, jwks: [] }, 400, 'invalid_request', '/jwks'],
      [{ bundle: genuine, jwks: { keys: 'x' } }, 400, 'invalid_request', '/jwks/keys'],
      [{ bundle: genuine, jwks: { keys: ['x'] } }, 400, 'invalid_request', '/jwks/keys/0'],
      [{ bundle: genuine, jwks: { keys: Array(65).fill(ownJwks.keys[0]) } }, 400, 'invalid_request', '/jwks/keys'],
      [{ bundle: { ...genuine, note: `pan ${TEST_PAN}` } }, 400, 'pan_refused', '/bundle/note'],
      [JSON.parse('{"bundle":{"__proto__":{"valid":true}}}'), 400, 'invalid_json', '/bundle/__proto__'],
      [
        { bundle: { ...genuine, constructor: { prototype: { valid: true } } } },
        400,
        'invalid_json',
        '/bundle/constructor',
      ],
    ];
    for (const [payload, status, code, path] of cases) expectProblem(await verify(payload), status, code, path);
  });

  it('refuses a body above the limit (413) and 65-deep nesting (400) before judging anything', async () => {
    const big = JSON.stringify({ bundle: { ...genuine, padding: 'x'.repeat(rt.ctx.config.bodyLimit) } });
    expectProblem(await call({ method: 'POST', url: '/v1/bundles/verify', payload: big }), 413, 'payload_too_large');
    const deep = `{"bundle":{"a":${nestedJson(64)}}}`;
    expectProblem(await call({ method: 'POST', url: '/v1/bundles/verify', payload: deep }), 400, 'invalid_json');
  });

  it('a runtime token and a principal may verify; what they send changes nothing', async () => {
    const before = await countBundles();
    for (const token of [runtime, w.aliceToken, w.bobToken]) {
      const res = await verify({ bundle: genuine }, token);
      expect(res.status, res.text).toBe(200);
      expect(res.body.valid).toBe(true);
    }
    expect(await countBundles()).toBe(before);
  });
});
