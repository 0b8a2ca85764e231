/**
 * Scheduled reports made by real `aar serve` processes with AAR_OPT_IN=reports (the report worker on its own 30 s
 * timer, the webhook worker delivering): a schedule that starts three hours back has its ended hours reported, each
 * once, and each announced once to a real receiver by `ns.report.generated`. On SQLite one process; on PostgreSQL
 * two processes sharing one schema, both running the worker: still one report per hour.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiCall, mustSucceed } from '../support/api-call.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import { spawnServer, type ServerProcess } from '../support/spawn-server.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const TOKEN = 'reports-serve-admin-token-0123456789';
const HOUR = 3_600_000;
const GRACE_MS = 5_000;
const dialects = await testDialects();
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function serve(count: number, databaseUrl?: string): Promise<ServerProcess[]> {
  const servers: ServerProcess[] = [];
  for (let i = 0; i < count; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'aar-reports-serve-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = await spawnServer({
      AAR_DATA_DIR: dir,
      AAR_BOOTSTRAP_TOKEN: TOKEN,
      AAR_OPT_IN: 'reports',
      AAR_WEBHOOK_ALLOW_INSECURE: 'true',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    cleanups.push(async () => void (await server.stop()));
    servers.push(server);
  }
  return servers;
}

describe.each(dialects)('scheduled reports by aar serve on %s', (dialect) => {
  it('reports each ended hour once, and announces each once', { timeout: 150_000 }, async () => {
    let databaseUrl: string | undefined;
    if (dialect === 'postgres') {
      const schema = await freshPgSchema();
      cleanups.push(() => schema.drop());
      databaseUrl = schema.url;
    }
    const servers = await serve(dialect === 'postgres' ? 2 : 1, databaseUrl);
    const admin = mustSucceed(createApiCall(servers[0]!.base, TOKEN));
    const scoped = (await admin('POST', '/v1/tokens', { role: 'admin', scopes: ['reports.read', 'reports.write'] }))
      .body.token as string;
    const api = mustSucceed(createApiCall(servers[0]!.base, scoped));
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    await admin('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'shared_secret',
      event_types: ['ns.report.generated'],
    });
    const first = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
    const schedule = (
      await api('POST', '/v1/reports/schedules', { every: 'hour', starts_at: new Date(first).toISOString() })
    ).body;
    expect(schedule.next_period.start).toBe(new Date(first).toISOString());
    const due = Math.floor((Date.now() - GRACE_MS - first) / HOUR);
    expect(due).toBeGreaterThanOrEqual(2);

    // the workers' first tick comes 30 s after start
    const deadline = Date.now() + 100_000;
    type Item = { report_id: string; period: { start: string } };
    const list = async (): Promise<Item[]> =>
      (await api('GET', `/v1/reports?schedule_id=${schedule.schedule_id}`)).body.items;
    while (Date.now() < deadline) {
      if ((await list()).length >= due && receiver.received.length >= due) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // a few seconds more: a second instance or a later tick must add nothing
    await new Promise((r) => setTimeout(r, 3_000));
    const items = await list();
    const starts = items.map((i) => i.period.start).sort();
    expect(starts.slice(0, due)).toEqual(
      Array.from({ length: due }, (_, i) => new Date(first + i * HOUR).toISOString()),
    );
    expect(new Set(starts).size).toBe(starts.length);
    const announced = receiver.received.map((d) => JSON.parse(d.body.toString('utf8')).data.report_id as string);
    expect(new Set(announced)).toEqual(new Set(items.map((i) => i.report_id)));
    expect(new Set(receiver.received.map((d) => String(d.headers['webhook-id']))).size).toBe(announced.length);
  });
});
