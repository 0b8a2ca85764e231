/**
 * A listing's conformance evidence (issue 26): only a report about the listing's own deployment, signed by the key
 * its publisher entity registered, feeds its trust score; verified at registration and again at every score.
 * - this service's own self-run report earns nothing (refused, naming the field; changes nothing);
 * - a forged or unsigned report earns nothing (refused at registration; a stored report edited afterwards scores as
 *   no evidence);
 * - a partial run (some profiles only) scores below a full one with the same failures.
 */
import { generateKeyPairSync, sign as edSign } from 'node:crypto';
import {
  CONFORMANCE_PROFILE_IDS,
  CONFORMANCE_REPORT_SCHEMA,
  signDocument,
  summarizeFixtureResults,
  type FixtureResult,
} from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeConformanceReport } from '../../src/services/conformance/conformance-runs.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const clock = { at: Date.parse('2026-11-24T10:20:00.000Z'), now: () => new Date(clock.at) };
const DEPLOYMENT = 'https://agents.example.com';
let rt: TestRuntime;
const publisher = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const PUBLISHER_ID = 'ns:entity:organisation:example-agents';

async function call(method: 'GET' | 'POST', url: string, payload?: Json) {
  const res = await rt.app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: JSON.parse(res.body) as Json };
}
const conformance = (listing: Json) =>
  (listing.trust_score.components as Json[]).find((c) => c.name === 'conformance')!;
const listingCount = async () => (await rt.ctx.store.db.selectFrom('listings').select('seq').execute()).length;

const listing = (over: Json = {}): Json => ({
  kind: 'service',
  title: 'Example checkout service',
  publisher: { name: 'Example Agents', tier: 'community', entity_id: PUBLISHER_ID },
  sectors: ['retail'],
  regimes: ['psd3'],
  jurisdictions: ['DE'],
  pricing_model: 'usage',
  deployment_url: DEPLOYMENT,
  ...over,
});

let reportSeq = 0;
/** A report of `fixtures` fixtures (`failed` of them failed) over `profiles`, signed with `key`. */
async function report(
  opts: { profiles?: readonly string[]; fixtures?: number; failed?: number; kitFixtures?: number; baseUrl?: string },
  key = publisher.privateKey,
): Promise<Json> {
  const profiles = opts.profiles ?? CONFORMANCE_PROFILE_IDS;
  const fixtures = opts.fixtures ?? 20;
  const results: FixtureResult[] = Array.from({ length: fixtures }, (_, i) => ({
    fixture_id: `core.f${i}`,
    profile: profiles[i % profiles.length]!,
    title: 't',
    status: i < (opts.failed ?? 0) ? 'failed' : 'passed',
    duration_ms: 1,
    failures: [],
  }));
  const summary = summarizeFixtureResults(results);
  reportSeq += 1;
  const unsigned = {
    schema_version: CONFORMANCE_REPORT_SCHEMA,
    report_id: `ns:conformance_report:019a0000-0000-7000-8000-${String(reportSeq).padStart(12, '0')}`,
    kit: { version: '1.0.0', fixtures: opts.kitFixtures ?? 20, digest: 'sha-256:x' },
    target: { base_url: opts.baseUrl ?? DEPLOYMENT, server_version: '1.0.0' },
    profiles_requested: [...profiles],
    profiles: [],
    summary,
    passed: summary.failed === 0,
    started_at: '2026-11-20T07:59:00.000Z',
    finished_at: '2026-11-20T08:00:00.000Z',
    results,
  };
  return (await signDocument(unsigned, {
    keyId: PUBLISHER_ID,
    sign: async (m: Uint8Array) => new Uint8Array(edSign(null, m, key)),
  })) as unknown as Json;
}

beforeAll(async () => {
  rt = await startTestRuntime({ clock });
  const jwk = publisher.publicKey.export({ format: 'jwk' }) as Json;
  const created = await call('POST', '/v1/entities', {
    type: 'organisation',
    id: 'example-agents',
    display_name: 'Example Agents',
    public_key_jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
});
afterAll(async () => rt?.close());

describe('conformance evidence of a listing', () => {
  it('a full report of the deployment signed by the publisher counts', async () => {
    const res = await call('POST', '/v1/listings', listing({ conformance_report: await report({ failed: 2 }) }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(conformance(res.body)).toMatchObject({ value: 90, inputs: { passed: 18, failed: 2 } });
    expect(res.body).toMatchObject({ deployment_url: DEPLOYMENT, publisher: { entity_id: PUBLISHER_ID } });
    const freshness = (res.body.trust_score.components as Json[]).find((c) => c.name === 'evidence_freshness')!;
    expect(freshness.inputs).toMatchObject({ latest_at: '2026-11-20T08:00:00.000Z', source: 'conformance_report' });
  });

  it("this service's own report earns nothing: refused naming the field, nothing written", async () => {
    const own = await call('POST', '/v1/conformance/runs', { profiles: ['ns.core.v1'] });
    expect(own.status).toBe(201);
    const before = await listingCount();
    for (const body of [
      listing({ conformance_report_id: own.body.report_id }),
      listing({ conformance_report: own.body }),
      // even with the service's own URL as the deployment and no publisher key to check against
      listing({ conformance_report_id: own.body.report_id, deployment_url: undefined }),
    ]) {
      const res = await call('POST', '/v1/listings', body);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.code).toBe('reference_invalid');
      expect(res.body.errors[0].path).toMatch(/^\/conformance_report(_id)?$/);
    }
    expect(await listingCount()).toBe(before);
  });

  it('a forged or unsigned report earns nothing', async () => {
    const before = await listingCount();
    const forged = await report({}, stranger.privateKey); // names the publisher as key_id, signed by someone else
    const edited = { ...(await report({ failed: 10 })), passed: true };
    const unsigned = { ...(await report({})) };
    delete unsigned.signature;
    const elsewhere = await report({ baseUrl: 'https://other.example.com' });
    for (const r of [forged, edited, unsigned, elsewhere]) {
      const res = await call('POST', '/v1/listings', listing({ conformance_report: r }));
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/conformance_report' }] });
    }
    expect(await listingCount()).toBe(before);

    // a stored report whose row was written by someone with the database but not the key is no evidence
    const good = await report({});
    const res = await call('POST', '/v1/listings', listing({ conformance_report: good }));
    expect(conformance(res.body).inputs).toMatchObject({ passed: 20, failed: 0 });
    await rt.ctx.store.db
      .insertInto('conformance_runs')
      .values({
        report_id: 'ns:conformance_report:019a0000-0000-7000-8000-0000000000ff',
        passed: 1,
        fixtures: 20,
        failed: 0,
        document: JSON.stringify({ ...good, report_id: 'ns:conformance_report:019a0000-0000-7000-8000-0000000000ff' }),
        created_by: null,
        created_at: '2026-11-20T08:00:00.000Z',
        origin: 'publisher',
      })
      .execute();
    const copied = await call(
      'POST',
      '/v1/listings',
      listing({ conformance_report_id: 'ns:conformance_report:019a0000-0000-7000-8000-0000000000ff' }),
    );
    expect(copied.status).toBe(422); // its signature no longer covers its id
  });

  it('a partial run scores below a full one with the same failures', async () => {
    const full = await call('POST', '/v1/listings', listing({ conformance_report: await report({ failed: 1 }) }));
    const partial = await call(
      'POST',
      '/v1/listings',
      listing({ conformance_report: await report({ profiles: ['ns.core.v1'], fixtures: 10, failed: 1 }) }),
    );
    // and one claiming a kit as small as its partial run still loses a fixture for the profiles it left out
    const claimedSmall = await call(
      'POST',
      '/v1/listings',
      listing({
        conformance_report: await report({ profiles: ['ns.core.v1'], fixtures: 10, failed: 0, kitFixtures: 10 }),
      }),
    );
    for (const r of [full, partial, claimedSmall]) expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(conformance(full.body).value).toBe(95);
    expect(conformance(partial.body).value).toBeLessThan(conformance(full.body).value);
    expect(conformance(partial.body).inputs).toMatchObject({ passed: 9, failed: 11 });
    expect(conformance(claimedSmall.body).value).toBeLessThan(100);
  });

  it('an unsigned report stored on the service is refused as evidence', async () => {
    const legacy = 'ns:conformance_report:019a0000-0000-7000-8000-0000000000aa';
    await storeConformanceReport(
      rt.ctx,
      {
        report_id: legacy,
        summary: { fixtures: 10, passed: 10, failed: 0, skipped: 0 },
        passed: true,
        finished_at: '2026-11-20T08:00:00.000Z',
      } as never,
      null,
    );
    const res = await call('POST', '/v1/listings', listing({ conformance_report_id: legacy }));
    expect(res.status).toBe(422);
  });
});
