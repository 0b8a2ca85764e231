import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../src/http/server-version.ts';
import { metricsRegistryOf } from '../../src/http/observability.ts';
import { merchantRow } from '../support/merchant-row.ts';
import { buildHarness, type Harness } from './gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await buildHarness();
});
afterAll(async () => {
  await h.close();
});

describe('health check', () => {
  it('answers ok with the storage kind and version, without a token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', storage: 'sqlite', version: SERVER_VERSION });
    expect(SERVER_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('answers 503 problem+json when the database is gone', async () => {
    const broken = await buildHarness();
    try {
      await broken.ctx.store.db.destroy();
      const res = await broken.app.inject({ method: 'GET', url: '/healthz' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.json()).toMatchObject({ status: 503, code: 'storage_unavailable' });
    } finally {
      await broken.close();
    }
  });
});

describe('metrics', () => {
  it('counts requests by route pattern, never by raw URL, on a registry of its own', async () => {
    await h.app.inject({ method: 'GET', url: '/test/query?limit=5', headers: h.auth(h.tokens.admin) });
    await h.app.inject({ method: 'GET', url: '/test/query?limit=6', headers: h.auth(h.tokens.admin) });
    await h.app.inject({ method: 'GET', url: '/no/such/route/123' });
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('aar_http_requests_total{method="GET",route="/test/query",status_code="200"} 2');
    expect(res.body).toContain('aar_http_requests_total{method="GET",route="unmatched",status_code="404"} 1');
    expect(res.body).toContain('aar_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/test/query"');
    expect(res.body).toContain('process_cpu_user_seconds_total');
    expect(res.body).not.toContain('limit=5');
    expect(res.body).not.toContain('/no/such/route');
  });

  it("reports the write queue's batches and units, whose ratio is the mean batch size", async () => {
    const before = { batches: h.ctx.writer.batches, units: h.ctx.writer.units };
    // three units queued in one turn of the event loop run as one batch
    await Promise.all(
      ['metrics-m1', 'metrics-m2', 'metrics-m3'].map((id) =>
        h.ctx.writer.run((trx) => trx.insertInto('merchants').values(merchantRow(id)).execute()),
      ),
    );
    expect(h.ctx.writer.batches - before.batches).toBe(1);
    const body = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(body).toContain('# TYPE aar_write_batches_total counter');
    expect(body).toContain(`aar_write_batches_total ${before.batches + 1}\n`);
    expect(body).toContain(`aar_write_units_total ${before.units + 3}\n`);
  });

  it('keeps apps apart and finds the registry from a plugin scope', async () => {
    const other = await buildHarness();
    try {
      const otherMetrics = await other.app.inject({ method: 'GET', url: '/metrics' });
      expect(otherMetrics.body).not.toContain('route="/test/query"');
      const found = metricsRegistryOf(other.pluginScope);
      expect(other.pluginScope).not.toBe(other.app);
      expect(found).toBeDefined();
      expect(found).toBe(metricsRegistryOf(other.app));
      expect(found).not.toBe(metricsRegistryOf(h.app));
    } finally {
      await other.close();
    }
  });
});
