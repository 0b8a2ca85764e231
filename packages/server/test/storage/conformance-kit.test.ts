/**
 * The whole conformance kit, black-box over a real socket, against `aar serve` on each database (SQLite and
 * PostgreSQL: AAR_TEST_DIALECTS). Every fixture must pass: none may be skipped either (the server runs with the
 * shortest approval TTL so the fixtures that wait for an expiry run to the end).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
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

  it('runs a profile on itself, and the database keeps the signed report write-once', async () => {
    const res = await fetch(`${target.server.base}/v1/conformance/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KIT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ profiles: ['ns.marketplace.v1'] }),
    });
    const report = (await res.json()) as { report_id: string; passed: boolean; summary: { failed: number } };
    expect(res.status, JSON.stringify(report).slice(0, 1000)).toBe(201);
    expect(report).toMatchObject({ passed: true, summary: { failed: 0 } });
    const attempts = [
      `update conformance_runs set passed = 0 where report_id = '${report.report_id}'`,
      `delete from conformance_runs where report_id = '${report.report_id}'`,
    ];
    if (target.databaseUrl) {
      const client = new pg.Client({ connectionString: target.databaseUrl });
      await client.connect();
      try {
        for (const sql of attempts) await expect(client.query(sql)).rejects.toThrow(/write-once|refuse/);
        const { rows } = await client.query('select passed from conformance_runs where report_id = $1', [
          report.report_id,
        ]);
        expect(rows).toEqual([{ passed: 1 }]);
      } finally {
        await client.end();
      }
    } else {
      const db = new Database(join(target.dataDir, 'aar.sqlite'));
      try {
        for (const sql of attempts) expect(() => db.prepare(sql).run()).toThrow(/write-once/);
      } finally {
        db.close();
      }
    }
  }, 120_000);
});
