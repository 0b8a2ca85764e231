/**
 * The client methods of the routes added with issues 12-14 (proof bundles, JSON Schemas, compliance, self-audit,
 * certification, conformance, connectors, listings, decision search, tokens/self), against a local server: each
 * sends its method, escaped path, query and body; every POST carries an Idempotency-Key, reused across retries, and
 * no GET does; the list walks read past empty filtered pages; refusals are typed errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AarApiError, AarClient } from '../../src/index.ts';
import { json, problem, startRecordingServer, type RecordingServer } from '../support/recording-server.ts';

const TOKEN = 'aar_secret_token_for_tests';
let server: RecordingServer;
let client: AarClient;

beforeAll(async () => {
  server = await startRecordingServer();
  client = new AarClient({ baseUrl: server.base, token: TOKEN, retry: { maxAttempts: 1 } });
});
afterAll(() => server.close());

const ID = 'ns:bundle:a/b';
const ESC = encodeURIComponent(ID);
const BODY = { probe: 'body', amount: 12.5 };

type Case = [name: string, call: (c: AarClient) => Promise<unknown>, method: string, url: string, body?: unknown];

const CASES: Case[] = [
  [
    'assembleBundle',
    (c) => c.assembleBundle({ policy_decision_id: 'ns:decision:1' }),
    'POST',
    '/v1/bundles/assemble',
    { policy_decision_id: 'ns:decision:1' },
  ],
  ['getBundle', (c) => c.getBundle(ID), 'GET', `/v1/bundles/${ESC}`],
  ['getBundlePart', (c) => c.getBundlePart(ID, 'decision_map'), 'GET', `/v1/bundles/${ESC}/parts/decision_map`],
  [
    'verifyBundleOnline',
    (c) => c.verifyBundleOnline({ bundle: BODY, jwks: { keys: [] } }),
    'POST',
    '/v1/bundles/verify',
    { bundle: BODY, jwks: { keys: [] } },
  ],
  ['listSchemas', (c) => c.listSchemas(), 'GET', '/v1/schemas'],
  ['getSchema', (c) => c.getSchema('ns.webhook.v1'), 'GET', '/v1/schemas/ns.webhook.v1'],
  ['listComplianceFrameworks', (c) => c.listComplianceFrameworks(), 'GET', '/v1/compliance/frameworks'],
  ['getComplianceFramework', (c) => c.getComplianceFramework('soc2'), 'GET', '/v1/compliance/frameworks/soc2'],
  [
    'createComplianceProjection',
    (c) => c.createComplianceProjection({ framework: 'dora' }),
    'POST',
    '/v1/compliance/projections',
    { framework: 'dora' },
  ],
  [
    'createComplianceProjection oscal',
    (c) => c.createComplianceProjection({ framework: 'dora' }, { format: 'oscal' }),
    'POST',
    '/v1/compliance/projections?format=oscal',
    { framework: 'dora' },
  ],
  ['createSelfAuditRun', (c) => c.createSelfAuditRun(), 'POST', '/v1/self-audit/runs'],
  ['getSelfAuditRun', (c) => c.getSelfAuditRun(ID), 'GET', `/v1/self-audit/runs/${ESC}`],
  [
    'createCertificationAttestation',
    (c) => c.createCertificationAttestation({ conformance_report_id: 'r' }),
    'POST',
    '/v1/certification/attestations',
    { conformance_report_id: 'r' },
  ],
  [
    'getCertificationAttestation',
    (c) => c.getCertificationAttestation(ID),
    'GET',
    `/v1/certification/attestations/${ESC}`,
  ],
  [
    'verifyCertificationAttestation',
    (c) => c.verifyCertificationAttestation({ jws: 'a.b.c' }),
    'POST',
    '/v1/certification/verify',
    { jws: 'a.b.c' },
  ],
  ['listConformanceProfiles', (c) => c.listConformanceProfiles(), 'GET', '/v1/conformance/profiles'],
  [
    'listConformanceFixtures',
    (c) => c.listConformanceFixtures({ profile: 'ns.bundles.v1' }),
    'GET',
    '/v1/conformance/fixtures?profile=ns.bundles.v1',
  ],
  [
    'createConformanceRun',
    (c) => c.createConformanceRun({ profiles: ['ns.core.v1'] }),
    'POST',
    '/v1/conformance/runs',
    { profiles: ['ns.core.v1'] },
  ],
  ['getConformanceRun', (c) => c.getConformanceRun(ID), 'GET', `/v1/conformance/runs/${ESC}`],
  ['retireConformanceRun', (c) => c.retireConformanceRun(ID), 'POST', `/v1/conformance/runs/${ESC}/retire`],
  [
    'listConnectors',
    (c) => c.listConnectors({ family: 'payments', status: 'active' }),
    'GET',
    '/v1/connectors?family=payments&status=active',
  ],
  ['getConnector', (c) => c.getConnector('stripe'), 'GET', '/v1/connectors/stripe'],
  ['createListing', (c) => c.createListing(BODY as never), 'POST', '/v1/listings', BODY],
  ['getListing', (c) => c.getListing('ns:listing:x'), 'GET', '/v1/listings/ns%3Alisting%3Ax'],
  [
    'searchListings',
    (c) => c.searchListings({ regime: 'psd3', min_score: 60 }),
    'GET',
    '/v1/listings/search?regime=psd3&min_score=60',
  ],
  [
    'searchDecisions',
    (c) => c.searchDecisions({ decision: 'deny', limit: 5 }),
    'GET',
    '/v1/decisions?decision=deny&limit=5',
  ],
  ['getDecisionStats', (c) => c.getDecisionStats({ bucket: 'hour' }), 'GET', '/v1/decisions/stats?bucket=hour'],
  ['getOwnToken', (c) => c.getOwnToken(), 'GET', '/v1/tokens/self'],
];

describe('AarClient: routes of issues 12-14', () => {
  it.each(CASES)('%s sends its method, path, query and body', async (_name, call, method, url, body) => {
    server.respond(json(200, { ok: true }));
    await expect(call(client)).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect([req.method, req.url]).toEqual([method, url]);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    if (body === undefined) {
      expect(req.body).toBe('');
      expect(req.headers['content-type']).toBeUndefined();
    } else {
      expect(JSON.parse(req.body)).toEqual(body);
    }
    if (method === 'POST') expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    else expect(req.headers['idempotency-key']).toBeUndefined();
  });

  it('walks listings past empty filtered pages, and decisions page by page', async () => {
    server.respond(
      json(200, { items: [], next_cursor: 'p2' }),
      json(200, { items: [{ listing_id: 'ns:listing:a' }], next_cursor: 'p3' }),
      json(200, { items: [{ listing_id: 'ns:listing:b' }], next_cursor: null }),
    );
    const seen: string[] = [];
    for await (const l of client.searchListingsAll({ min_score: 90 })) seen.push(l.listing_id);
    expect(seen).toEqual(['ns:listing:a', 'ns:listing:b']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/listings/search?min_score=90',
      '/v1/listings/search?min_score=90&cursor=p2',
      '/v1/listings/search?min_score=90&cursor=p3',
    ]);

    server.respond(
      json(200, { items: [{ policy_decision_id: 'ns:decision:2' }], next_cursor: 'older' }),
      json(200, { items: [{ policy_decision_id: 'ns:decision:1' }], next_cursor: 'older' }),
    );
    const ids: string[] = [];
    const walk = async () => {
      for await (const d of client.searchDecisionsAll({ actor_entity_id: 'ns:agent:a' }))
        ids.push(d.policy_decision_id);
    };
    // a service answering the same cursor twice would be walked forever: the walk stops with an error instead
    await expect(walk()).rejects.toThrow(/twice/);
    expect(ids).toEqual(['ns:decision:2', 'ns:decision:1']);
  });

  it('retries a POST with one Idempotency-Key and types the refusal', async () => {
    const retrying = new AarClient({
      baseUrl: server.base,
      token: TOKEN,
      retry: { maxAttempts: 3 },
      sleep: async () => {},
    });
    server.respond(
      problem(503, 'audit_unavailable'),
      problem(422, 'reference_not_found', { errors: [{ path: '/conformance_report_id', message: 'unknown' }] }),
    );
    const refused = await retrying
      .createCertificationAttestation({ conformance_report_id: 'ns:conformance_report:x' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AarApiError);
    expect(refused).toMatchObject({ status: 422, code: 'reference_not_found' });
    expect((refused as AarApiError).errors[0]?.path).toBe('/conformance_report_id');
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });
});
