import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHarness, type Harness } from './gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await buildHarness({ config: { rateLimit: 3 } });
});
afterAll(async () => {
  await h.close();
});

describe('rate limit', () => {
  it('answers 429 problem+json with Retry-After past the per-minute limit of a credential', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/test/admin', headers: h.auth(h.tokens.admin) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const res = await h.app.inject({ method: 'GET', url: '/test/admin', headers: h.auth(h.tokens.admin) });
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.json()).toMatchObject({ code: 'rate_limited', status: 429, retry_after: retryAfter });
  });

  it('counts each credential apart', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/test/query', headers: h.auth(h.tokens.auditor) });
    expect(res.statusCode).toBe(200);
  });

  it('counts requests without a token per address', async () => {
    const remoteAddress = '198.51.100.9';
    for (let i = 0; i < 3; i++) {
      expect((await h.app.inject({ method: 'GET', url: '/test/public', remoteAddress })).statusCode).toBe(200);
    }
    expect((await h.app.inject({ method: 'GET', url: '/test/public', remoteAddress })).statusCode).toBe(429);
  });

  it('never limits the health check and the metrics', async () => {
    const remoteAddress = '198.51.100.10';
    for (let i = 0; i < 6; i++) {
      expect((await h.app.inject({ method: 'GET', url: '/healthz', remoteAddress })).statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: '/metrics', remoteAddress })).statusCode).toBe(200);
    }
  });
});
