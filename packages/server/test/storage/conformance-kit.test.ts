/**
 * The whole conformance kit, black-box over a real socket, against `aar serve` on each database (SQLite and
 * PostgreSQL: AAR_TEST_DIALECTS). Every fixture must pass: none may be skipped either (the server runs with the
 * shortest approval TTL so the fixtures that wait for an expiry run to the end).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceKit } from '../../src/services/conformance/run-kit.ts';
import { testDialects } from '../support/dialects.ts';
import { installedKitForTests, KIT_TOKEN, spawnKitServer, type KitServer } from '../support/conformance-kit.ts';

const { kit, schemas } = installedKitForTests();

describe.each(await testDialects())('conformance kit against aar serve on %s', (dialect) => {
  let target: KitServer;
  beforeAll(async () => {
    target = await spawnKitServer(dialect);
  });
  afterAll(async () => target?.close());

  it('passes every fixture of every profile', async () => {
    const report = await runConformanceKit({
      kit,
      schemas,
      target: { baseUrl: target.server.base, token: KIT_TOKEN },
      concurrency: 4,
    });
    const failed = report.results.filter((r) => r.status !== 'passed');
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(report.summary.passed).toBe(kit.fixtures.length);
    expect(report.passed).toBe(true);
    // every credential the fixtures made was revoked by their cleanup: only the bootstrap token is left active
    const tokens = await fetch(`${target.server.base}/v1/tokens?limit=500`, {
      headers: { authorization: `Bearer ${KIT_TOKEN}` },
    }).then((r) => r.json() as Promise<{ items: Array<{ revoked_at: string | null }> }>);
    expect(tokens.items.filter((t) => t.revoked_at === null)).toHaveLength(1);
  }, 240_000);
});
