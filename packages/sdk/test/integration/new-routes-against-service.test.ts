/**
 * The routes of issues 12-14 through the client, against the real service (its sources, SQLite, a real socket):
 * every operation of the service's current OpenAPI document has a client method (so `npm run sdk:generate` finds
 * none missing); a decision's proof bundle is assembled, verified offline (the ten checks) and by the service, a part
 * read alone hashes to its reference, a changed bundle fails; the decision is found by search and counted; schemas,
 * compliance (signed and OSCAL), conformance, connectors, listings and self-audit answer what they document.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, ADMIN_TOKEN, type TestRuntime } from '../../../server/test/support/test-runtime.ts';
import { OPERATION_NAMES } from '../../scripts/operation-names.ts';
import { AarClient, BUNDLE_CHECKS, createRequestSigner, partDigest, verifyBundle } from '../../src/index.ts';

let runtime: TestRuntime;
let base: string;
let admin: AarClient;
let agent: AarClient;
let decisionId: string;
let evidencePackId: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
  admin = new AarClient({ baseUrl: base, token: ADMIN_TOKEN });

  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  await admin.createEntity({ type: 'person', id: 'bob', display_name: 'Bob' });
  await admin.createEntity({
    type: 'agent',
    id: 'buyer',
    display_name: 'Buyer',
    public_key_jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! },
  });
  await admin.createCardToken({ id: 'tok-b', principal_entity_id: 'ns:entity:person:bob', network_token: 'ntk_b' });
  await admin.createMerchant({ id: 'books-1', display_name: 'Books', category: '5942', jurisdiction: 'DE' });
  await admin.createGrant({
    principal_entity_id: 'ns:entity:person:bob',
    actor_entity_id: 'ns:entity:agent:buyer',
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-b',
    scope: {
      max_amount_per_purchase: { amount: 80, currency: 'EUR' },
      max_daily_amount: { amount: 200, currency: 'EUR' },
      valid_until: new Date(Date.now() + 365 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  });
  agent = new AarClient({ baseUrl: base, token: (await admin.createToken({ role: 'runtime' })).token });
  const signer = createRequestSigner({ keyId: 'ns:entity:agent:buyer', privateJwk: { ...jwk, kty: 'OKP' } as never });
  const decision = await agent.authorize(
    {
      actor_entity_id: 'ns:entity:agent:buyer',
      principal_entity_id: 'ns:entity:person:bob',
      subject: 'ns:capability:payment_action:card_purchase',
      resource: { merchant_id: 'books-1', amount: 24.9, currency: 'EUR' },
      scope: { instrument: 'ns:card_token:tok-b' },
    },
    { signer },
  );
  expect(decision.decision).toBe('allow_with_constraints');
  decisionId = decision.policy_decision_id;
  evidencePackId = decision.evidence_refs[0]!;
});
afterAll(() => runtime.close());

describe('AarClient: routes of issues 12-14 against the service', () => {
  it('has a method for every operation of the service’s current OpenAPI document', async () => {
    const doc = (await admin.getOpenApiDocument()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const missing: string[] = [];
    let count = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        count++;
        const name = OPERATION_NAMES[`${method.toUpperCase()} ${path}`] ?? op.operationId;
        if (name === undefined || typeof (admin as unknown as Record<string, unknown>)[name] !== 'function') {
          missing.push(`${method.toUpperCase()} ${path} (${name ?? 'no name'})`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThan(85);
  });

  it('assembles the decision’s bundle, which verifies offline and at the service, part by part', async () => {
    const bundle = await agent.assembleBundle({
      policy_decision_id: decisionId,
      purpose: { purpose: 'chargeback_dispute', ticket: 'case-7' },
    });
    const jwks = admin.jwksSource();
    const offline = await verifyBundle(bundle, jwks);
    expect(offline.checks.map((c) => c.name)).toEqual([...BUNDLE_CHECKS]);
    expect(offline.checks.filter((c) => !c.ok)).toEqual([]);
    expect(offline.valid).toBe(true);

    expect(await admin.getBundle(bundle.bundle_id)).toEqual(bundle);
    for (const ref of bundle.references) {
      expect(partDigest(await admin.getBundlePart(bundle.bundle_id, ref.name))).toBe(ref.sha256);
    }
    const online = await admin.verifyBundleOnline({ bundle });
    expect(online).toMatchObject({ schema_version: 'ns.bundle_verification.v1', valid: true });

    const changed = { ...bundle, runtime_decision: { ...bundle.runtime_decision, reason: 'approved_by_principal' } };
    const refused = await verifyBundle(changed, jwks);
    expect(refused.valid).toBe(false);
    expect(refused.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([
      'bundle_signature',
      'references_digest',
      'replay_equal',
    ]);
    expect((await admin.verifyBundleOnline({ bundle: changed })).valid).toBe(false);
  });

  it('finds the decision by search, counts it, and says who the credential is', async () => {
    const found = [];
    for await (const d of admin.searchDecisionsAll({ actor_entity_id: 'ns:agent:buyer' })) found.push(d);
    expect(found.map((d) => d.policy_decision_id)).toEqual([decisionId]);
    expect(found[0]).toMatchObject({ decision: 'allow_with_constraints', evidence_refs: [evidencePackId] });
    const stats = await admin.getDecisionStats({ actor_entity_id: 'ns:agent:buyer', bucket: 'hour' });
    expect(stats.total).toBe(1);
    expect(await agent.getOwnToken()).toMatchObject({ role: 'runtime', principal_entity_id: null });
  });

  it('serves schemas, compliance projections (signed and OSCAL), conformance profiles and fixtures', async () => {
    const schemas = await admin.listSchemas();
    const entry = schemas.items.find((s) => s.name === 'ns.authority_proof_bundle.v1');
    expect(entry).toBeDefined();
    expect((await admin.getSchema(entry!.name)).$id).toBe(entry!.id);

    const { frameworks } = await admin.listComplianceFrameworks();
    expect(frameworks.map((f) => f.framework)).toEqual(expect.arrayContaining(['soc2', 'iso27001', 'dora']));
    expect(await admin.getComplianceFramework('soc2')).toMatchObject({ framework: 'soc2' });
    const projection = await admin.createComplianceProjection({
      framework: 'soc2',
      evidence_pack_ids: [evidencePackId],
    });
    expect(projection).toMatchObject({ schema_version: 'ns.compliance_projection.v1', framework: 'soc2' });
    expect(projection.signature).toBeDefined();
    const oscal = await admin.createComplianceProjection(
      { framework: 'soc2', evidence_pack_ids: [evidencePackId] },
      { format: 'oscal' },
    );
    expect(oscal).toHaveProperty('assessment-results');

    const { profiles } = await admin.listConformanceProfiles();
    expect(profiles).toHaveLength(10);
    const { fixtures } = await admin.listConformanceFixtures({ profile: 'ns.bundles.v1' });
    expect(fixtures.length).toBeGreaterThan(0);
    expect(new Set(fixtures.map((f) => f.profile))).toEqual(new Set(['ns.bundles.v1']));
  });

  it('lists and filters connectors, registers a listing and finds it by search', async () => {
    const { items } = await admin.listConnectors();
    expect(items.length).toBeGreaterThan(40);
    const first = items[0] as { connector_id: string; connector_type: string; category: string };
    expect(await admin.getConnector(first.connector_id)).toMatchObject({ connector_id: first.connector_id });
    const sameType = await admin.listConnectors({ connector_type: first.connector_type });
    expect(sameType.items.length).toBeGreaterThan(0);
    expect(sameType.items.length).toBeLessThan(items.length);
    expect(sameType.items.every((c) => c.connector_type === first.connector_type)).toBe(true);
    const family = await admin.listConnectors({ family: first.category });
    expect(family.items.length).toBeLessThan(items.length);
    expect(family.items.every((c) => c.category === first.category)).toBe(true);

    const listing = await admin.createListing({
      kind: 'service',
      title: 'Zebra procurement desk',
      publisher: { name: 'Zebra Ltd', tier: 'community' },
      sectors: ['retail'],
      regimes: ['psd3'],
      jurisdictions: ['DE'],
      pricing_model: 'usage',
    });
    expect(listing.trust_score.components).toHaveLength(5);
    expect(await admin.getListing(listing.listing_id)).toMatchObject({ listing_id: listing.listing_id });
    const hits = [];
    for await (const l of agent.searchListingsAll({ q: 'zebra', regime: 'psd3', limit: 1 })) hits.push(l.listing_id);
    expect(hits).toEqual([listing.listing_id]);
  });

  it('runs a self-audit and reads the stored report back', async () => {
    const report = await admin.createSelfAuditRun();
    expect(report).toMatchObject({ schema_version: 'ns.self_audit_report.v1' });
    expect(await admin.getSelfAuditRun(report.run_id as string)).toEqual(report);
  });
});
