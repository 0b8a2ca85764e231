/**
 * The conformance kit against a deployment with AAR_WEBHOOK_ALLOW_INSECURE=true (what local receivers need), over a
 * real socket (issue 26):
 * - the SSRF fixtures are skipped with the reason, and no webhook endpoint is ever created at a non-loopback address
 *   (read from the store's own `ns.webhook.endpoint_created` events, so one created and deleted again would show);
 * - what the run created is retired and out of sight: no endpoint left, nothing of the run in marketplace search or in
 *   the default entity, grant, card-token and merchant lists; with `include_conformance=true` it is there, retired.
 * Also `audit_chain.consistency-backwards` on a fresh store (its log is a single entry).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceKit } from '../../src/services/conformance/run-kit.ts';
import { testDialects } from '../support/dialects.ts';
import { installedKitForTests, KIT_TOKEN, spawnKitServer, type KitServer } from '../support/conformance-kit.ts';

const { kit, schemas } = installedKitForTests();
const SSRF_FIXTURES = kit.fixtures.filter((f) => f.fixture.requires?.includes('webhook_target_guard'));

describe.each(await testDialects())('conformance kit against an insecure-mode deployment on %s', (dialect) => {
  let target: KitServer;
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${target.server.base}${path}`, { headers: { authorization: `Bearer ${KIT_TOKEN}` } });
    expect(res.status, `${path}: ${res.status}`).toBe(200);
    return (await res.json()) as T;
  };
  const ids = async (path: string, member: string): Promise<string[]> =>
    (await get<{ items: Array<Record<string, string>> }>(path)).items.map((i) => i[member]!);

  beforeAll(async () => {
    target = await spawnKitServer(dialect, { AAR_WEBHOOK_ALLOW_INSECURE: 'true' });
  });
  afterAll(async () => target?.close());

  it('holds audit_chain.consistency-backwards on a fresh store', async () => {
    let retired: unknown;
    const report = await runConformanceKit({
      kit,
      schemas,
      target: { baseUrl: target.server.base, token: KIT_TOKEN },
      fixtureIds: ['audit_chain.consistency-backwards'],
      onRetired: (outcome) => (retired = outcome),
    });
    expect(retired).toMatchObject({ retired: { entity: 1 }, failed: 0 });
    expect(report.results, JSON.stringify(report.results, null, 2)).toMatchObject([{ status: 'passed' }]);
  }, 60_000);

  it('skips the SSRF fixtures, creates no endpoint off loopback, and leaves nothing of the run in sight', async () => {
    expect(SSRF_FIXTURES.length).toBeGreaterThanOrEqual(12);
    const before = {
      entities: await ids('/v1/entities?limit=500', 'entity_id'),
      grants: await ids('/v1/grants?limit=500', 'grant_id'),
      listings: await ids('/v1/listings/search?limit=500', 'listing_id'),
      merchants: await ids('/v1/merchants?limit=500', 'merchant_id'),
      cardTokens: await ids('/v1/card-tokens?limit=500', 'card_token_id'),
    };
    let retired: unknown;
    const report = await runConformanceKit({
      kit,
      schemas,
      target: { baseUrl: target.server.base, token: KIT_TOKEN },
      concurrency: 4,
      onRetired: (outcome) => (retired = outcome),
    });
    const notPassed = report.results.filter((r) => r.status !== 'passed');
    expect(
      notPassed.filter((r) => r.status === 'failed'),
      JSON.stringify(notPassed, null, 2),
    ).toEqual([]);
    expect(notPassed.map((r) => r.fixture_id).sort()).toEqual(SSRF_FIXTURES.map((f) => f.fixture.fixture_id).sort());
    for (const r of notPassed) expect(r.skip_reason).toMatch(/AAR_WEBHOOK_ALLOW_INSECURE is on/);
    expect(retired).toMatchObject({ failed: 0 });

    // no endpoint was ever created off loopback: every creation event of the store names a loopback origin
    const origins = await endpointCreationOrigins(target);
    expect(origins.length).toBeGreaterThan(0); // the probe (loopback) at least
    for (const origin of origins) expect(new URL(origin).hostname).toMatch(/^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/);
    // and none is left at all
    expect(await ids('/v1/webhook-endpoints?limit=500', 'endpoint_id')).toEqual([]);

    // the default lists and search show what they showed before the run
    expect(await ids('/v1/entities?limit=500', 'entity_id')).toEqual(before.entities);
    expect(await ids('/v1/grants?limit=500', 'grant_id')).toEqual(before.grants);
    expect(await ids('/v1/listings/search?limit=500', 'listing_id')).toEqual(before.listings);
    expect(await ids('/v1/listings/search?limit=500&q=conformance', 'listing_id')).toEqual(
      before.listings.filter(() => false),
    );
    expect(await ids('/v1/merchants?limit=500', 'merchant_id')).toEqual(before.merchants);
    expect(await ids('/v1/card-tokens?limit=500', 'card_token_id')).toEqual(before.cardTokens);

    // opting in shows the run's records, retired: entities tombstoned, grants revoked, listings still write-once
    const entities = await get<{ items: Array<{ entity_id: string; state: string }> }>(
      '/v1/entities?limit=500&include_conformance=true',
    );
    expect(entities.items.length).toBeGreaterThan(before.entities.length);
    const active = entities.items.filter((e) => e.state !== 'tombstoned');
    expect(active).toEqual([]);
    const grants = await get<{ items: Array<{ grant_id: string; state: string }> }>(
      '/v1/grants?limit=500&include_conformance=true',
    );
    expect(grants.items.length).toBeGreaterThan(0);
    expect(grants.items.filter((g) => g.state !== 'revoked')).toEqual([]);
    const listings = await ids('/v1/listings/search?limit=500&include_conformance=true', 'listing_id');
    expect(listings.length).toBeGreaterThan(before.listings.length);
    // only the bootstrap token is left active
    const tokens = await get<{ items: Array<{ revoked_at: string | null }> }>('/v1/tokens?limit=500');
    expect(tokens.items.filter((t) => t.revoked_at === null)).toHaveLength(1);
  }, 300_000);
});

async function endpointCreationOrigins(target: KitServer): Promise<string[]> {
  const query = "select envelope from events where event_type = 'ns.webhook.endpoint_created'";
  let rows: Array<{ envelope: string }>;
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      rows = (await client.query<{ envelope: string }>(query)).rows;
    } finally {
      await client.end();
    }
  } else {
    const db = new Database(join(target.dataDir, 'aar.sqlite'), { readonly: true });
    try {
      rows = db.prepare(query).all() as Array<{ envelope: string }>;
    } finally {
      db.close();
    }
  }
  return rows.map((r) => (JSON.parse(r.envelope) as { data: { url_origin: string } }).data.url_origin);
}
