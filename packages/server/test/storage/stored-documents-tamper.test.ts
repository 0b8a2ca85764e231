/**
 * Stored documents are inside the chain (issue 26): on each database, an edit made with the write-once guards out of
 * the way (an attacker with SQL access, not the service key) to a grant's scope, a proof bundle, a conformance
 * report or a marketplace listing is named by `GET /v1/audit/verify` (table, record, column), and a listing whose
 * tier was raised from `community` to `certified` is no longer served with a valid service signature: the service
 * refuses to serve it (fail closed) instead of signing the edit at read.
 */
import { generateKeyPairSync, randomUUID, sign as edSign } from 'node:crypto';
import {
  CONFORMANCE_PROFILE_IDS,
  CONFORMANCE_REPORT_SCHEMA,
  signDocument,
  summarizeFixtureResults,
  verifyDocument,
  type FixtureResult,
  type Jwks,
} from '@aar/core';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/index.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

const PUBLISHER = 'ns:entity:organisation:report-publisher';
const DEPLOYMENT = 'https://service.example.com';
const publisher = generateKeyPairSync('ed25519');

/** A conformance report of the publisher's own deployment, signed with the publisher entity's key. */
async function publisherReport(): Promise<{ report_id: string } & Record<string, unknown>> {
  const results: FixtureResult[] = Array.from({ length: 4 }, (_, i) => ({
    fixture_id: `core.f${i}`,
    profile: CONFORMANCE_PROFILE_IDS[0]!,
    title: 't',
    status: 'passed',
    duration_ms: 1,
    failures: [],
  }));
  const summary = summarizeFixtureResults(results);
  const unsigned = {
    schema_version: CONFORMANCE_REPORT_SCHEMA,
    report_id: `ns:conformance_report:${randomUUID()}`,
    kit: { version: '1.0.0', fixtures: 4, digest: 'sha-256:x' },
    target: { base_url: DEPLOYMENT, server_version: '1.0.0' },
    profiles_requested: [CONFORMANCE_PROFILE_IDS[0]!],
    profiles: [],
    summary,
    passed: true,
    started_at: '2026-11-20T07:59:00.000Z',
    finished_at: '2026-11-20T08:00:00.000Z',
    results,
  };
  return (await signDocument(unsigned, {
    keyId: PUBLISHER,
    sign: async (m: Uint8Array) => new Uint8Array(edSign(null, m, publisher.privateKey)),
  })) as unknown as { report_id: string } & Record<string, unknown>;
}

describe.each(dialects)('stored documents tampered with on %s', (dialect) => {
  let rt: TestRuntime;
  let world: World;
  let ids: { grant: string; bundle: string; report: string; listing: string; publisherReport: string };
  const db = (): Kysely<Database> => rt.ctx.store.db;
  const verify = async () => (await world.call('GET', '/v1/audit/verify')).body;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    const decision = (await world.authorize(world.purchase(30))).body;
    const bundle = await world.must('POST', '/v1/bundles/assemble', {
      policy_decision_id: decision.policy_decision_id,
    });
    const report = await world.must('POST', '/v1/conformance/runs', { profiles: ['ns.audit_chain.v1'] });
    const listing = await world.must('POST', '/v1/listings', {
      listing_id: 'ns:listing:tamper-target',
      kind: 'agent',
      title: 'Modest Agent',
      publisher: { name: 'Small Shop', tier: 'community' },
      sectors: ['retail'],
      regimes: [],
      jurisdictions: ['DE'],
      pricing_model: 'free',
    });
    // a listing that brings its publisher's own report (stored with origin `publisher`, signed by the publisher)
    const jwk = publisher.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
    await world.must('POST', '/v1/entities', {
      type: 'organisation',
      id: 'report-publisher',
      display_name: 'Report Publisher',
      public_key_jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    });
    const brought = await publisherReport();
    await world.must('POST', '/v1/listings', {
      kind: 'service',
      title: 'Published Service',
      publisher: { name: 'Report Publisher', tier: 'community', entity_id: PUBLISHER },
      sectors: [],
      regimes: [],
      jurisdictions: [],
      pricing_model: 'usage',
      deployment_url: DEPLOYMENT,
      conformance_report: brought,
    });
    ids = {
      grant: world.grant.grant_id,
      bundle: bundle.bundle_id,
      report: report.report_id,
      listing: listing.listing_id,
      publisherReport: brought.report_id,
    };
    expect(await verify()).toMatchObject({ valid: true });
  }, 120_000);
  afterAll(async () => rt?.close());

  /** Edits one column of one row with the guards dropped, checks what verify says, then puts the value back. */
  async function tampered(
    table: 'grants' | 'bundles' | 'conformance_runs' | 'listings',
    key: string,
    id: string,
    column: string,
    change: (value: string) => string,
    expected: { failure: string; detail: string },
    alsoWhileTampered?: () => Promise<void>,
  ): Promise<void> {
    const before = (
      await sql<{ value: string }>`select ${sql.ref(column)} as value from ${sql.table(table)}
        where ${sql.ref(key)} = ${id}`.execute(db())
    ).rows[0]!.value;
    const after = change(String(before));
    expect(after).not.toBe(before);
    const set = async (value: unknown) =>
      bypassingGuards(db(), dialect, async (trx) => {
        await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${value} where ${sql.ref(key)} = ${id}`.execute(
          trx,
        );
      });
    await set(after);
    try {
      expect(await verify()).toMatchObject({ valid: false, record: { table, id }, ...expected });
      await alsoWhileTampered?.();
    } finally {
      await set(before);
    }
    expect(await verify(), `${table}.${column} restored`).toMatchObject({ valid: true });
  }

  it('names a grant whose scope was widened', async () => {
    await tampered(
      'grants',
      'grant_id',
      ids.grant,
      'scope',
      (scope) => {
        const parsed = JSON.parse(scope) as { blocked_merchant_categories?: string[] };
        parsed.blocked_merchant_categories = [];
        return JSON.stringify(parsed);
      },
      { failure: 'record_mismatch', detail: 'scope' },
    );
  });

  it('names a grant made revoked or handed to another actor', async () => {
    await tampered('grants', 'grant_id', ids.grant, 'state', () => 'revoked', {
      failure: 'record_mismatch',
      detail: 'state',
    });
    await tampered('grants', 'grant_id', ids.grant, 'actor_entity_id', () => 'ns:entity:person:alice', {
      failure: 'record_mismatch',
      detail: 'actor_entity_id',
    });
  });

  it('names an edited proof bundle', async () => {
    await tampered(
      'bundles',
      'bundle_id',
      ids.bundle,
      'document',
      (doc) => doc.replace('"decision_evidence"', '"marketing_research"'),
      { failure: 'record_signature_invalid', detail: 'document' },
    );
  });

  it('names an edited conformance report, and a summary column that disagrees with it', async () => {
    await tampered(
      'conformance_runs',
      'report_id',
      ids.report,
      'document',
      (doc) => doc.replace(/"fixtures":(\d+)/, (_, n: string) => `"fixtures":${Number(n) + 1}`),
      { failure: 'record_signature_invalid', detail: 'document' },
    );
    await tampered('conformance_runs', 'report_id', ids.report, 'fixtures', (n) => String(Number(n) + 7), {
      failure: 'record_mismatch',
      detail: 'fixtures',
    });
  });

  it("checks a report a listing brought with its publisher's key, and a self-run passed off as one", async () => {
    await tampered(
      'conformance_runs',
      'report_id',
      ids.publisherReport,
      'document',
      (doc) => doc.replace(/"fixtures":(\d+)/, (_, n: string) => `"fixtures":${Number(n) + 1}`),
      { failure: 'record_signature_invalid', detail: 'document' },
    );
    // a self-run relabelled as brought by a publisher: no publisher key signed it
    await tampered('conformance_runs', 'report_id', ids.report, 'origin', () => 'publisher', {
      failure: 'record_unanchored',
      detail: 'origin',
    });
  });

  it('names a listing raised from community to certified, which is no longer served signed', async () => {
    const jwks = (await world.call('GET', '/.well-known/jwks.json')).body as Jwks;
    const raise = (doc: string) => doc.replace('"tier":"community"', '"tier":"certified"');
    await tampered(
      'listings',
      'listing_id',
      ids.listing,
      'document',
      raise,
      { failure: 'record_digest_mismatch', detail: 'document' },
      async () => {
        // fail closed: no listing signed by the service says `certified`, by id or in search
        const read = await world.call('GET', `/v1/listings/${ids.listing}`);
        expect(read.body.publisher?.tier).not.toBe('certified');
        expect(read.status).toBe(503);
        expect(read.body).toMatchObject({
          code: 'audit_unavailable',
          integrity: { table: 'listings', id: ids.listing, column: 'document' },
        });
        const search = await world.call('GET', '/v1/listings/search?q=modest');
        expect(search.status).toBe(503);
      },
    );
    await tampered('listings', 'listing_id', ids.listing, 'publisher_tier', () => 'certified', {
      failure: 'record_mismatch',
      detail: 'publisher_tier',
    });
    // served again once the row is what was registered
    const read = await world.call('GET', `/v1/listings/${ids.listing}`);
    expect(read.status).toBe(200);
    expect((await verifyDocument(read.body, jwks)).valid).toBe(true);
  });

  it('an incremental run (from=verified) checks the listings and grants written since its mark', async () => {
    expect(await verify()).toMatchObject({ valid: true, mark: { size: expect.any(Number) } });
    const late = await world.must('POST', '/v1/listings', {
      listing_id: 'ns:listing:late-comer',
      kind: 'service',
      title: 'Late Comer',
      publisher: { name: 'Late Ltd', tier: 'community' },
      sectors: [],
      regimes: [],
      jurisdictions: [],
      pricing_model: 'usage',
    });
    const incremental = async () => (await world.call('GET', '/v1/audit/verify?from=verified')).body;
    const raise = (doc: string) => doc.replace('"tier":"community"', '"tier":"certified"');
    const before = (
      await db()
        .selectFrom('listings')
        .select('document')
        .where('listing_id', '=', late.listing_id)
        .executeTakeFirstOrThrow()
    ).document;
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .updateTable('listings')
        .set({ document: raise(before) })
        .where('listing_id', '=', late.listing_id)
        .execute();
    });
    expect(await incremental()).toMatchObject({
      valid: false,
      failure: 'record_digest_mismatch',
      record: { table: 'listings', id: late.listing_id },
    });
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx.updateTable('listings').set({ document: before }).where('listing_id', '=', late.listing_id).execute();
    });
    expect(await incremental()).toMatchObject({ valid: true });
  });

  it('names a facet added to a listing', async () => {
    const { seq } = await db()
      .selectFrom('listings')
      .select('seq')
      .where('listing_id', '=', ids.listing)
      .executeTakeFirstOrThrow();
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .insertInto('listing_facets')
        .values({ listing_seq: Number(seq), facet: 'regime', value: 'pci_dss' })
        .execute();
    });
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'listing_facets', id: ids.listing },
    });
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .deleteFrom('listing_facets')
        .where('listing_seq', '=', Number(seq))
        .where('value', '=', 'pci_dss')
        .execute();
    });
    expect(await verify()).toMatchObject({ valid: true });
  });
});
