/**
 * The console's static files (routes/console.ts): public, one exact route per built file, a strict CSP, hashed assets
 * cached and pages revalidated; paths outside the build keep the API's problem+json 404; and a server whose console
 * is not built starts without it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConsoleDir } from '../../src/routes/console.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('console static files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aar-console-static-'));
  let rt: TestRuntime;

  beforeAll(async () => {
    for (const page of ['console', 'simulator']) {
      mkdirSync(join(dir, page));
      writeFileSync(join(dir, page, 'index.html'), `<!doctype html><title>${page}</title>`);
    }
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'console-abc123.js'), 'export {};');
    writeFileSync(join(dir, 'assets', 'console-abc123.js.map'), '{}');
    rt = await startTestRuntime({ config: { consoleDir: dir } });
  });
  afterAll(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves both pages without a token, with a strict content security policy', async () => {
    for (const page of ['console', 'simulator']) {
      const res = await rt.app.inject({ method: 'GET', url: `/${page}/` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain(`<title>${page}</title>`);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('caches hashed assets for a year, and serves no source map', async () => {
    const asset = await rt.app.inject({ method: 'GET', url: '/assets/console-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await rt.app.inject({ method: 'GET', url: '/assets/console-abc123.js.map' })).statusCode).toBe(404);
  });

  it('keeps the API 404 for anything else, traversal included, and sends the bare path to the page', async () => {
    for (const url of ['/console/nope.html', '/console/../../etc/passwd', '/assets/', '/index.html']) {
      const res = await rt.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 404]);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    const bare = await rt.app.inject({ method: 'GET', url: '/console' });
    expect(bare.statusCode).toBeLessThan(400);
  });

  it('finds no console where none was built', () => {
    const empty = mkdtempSync(join(tmpdir(), 'aar-console-none-'));
    try {
      expect(findConsoleDir(empty)).toBeUndefined();
      expect(findConsoleDir(dir)).toBe(dir);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
