/**
 * The conformance routes over a real socket: profiles and fixtures, a self-run (the service runs the kit against
 * itself over loopback with a credential it mints and revokes), the signed report stored write-once, and the
 * refusals. The CLI's table and exit status against the same server, and against a broken one.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_PROFILE_IDS, verifyDocument, type Jwks } from '@aar/core';
import { latestConformanceRun } from '../../src/services/conformance/conformance-runs.ts';
import { installedKitForTests } from '../support/conformance-kit.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { startTamperingProxy } from '../support/tampering-proxy.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('conformance routes', () => {
  let rt: TestRuntime;
  let base: string;
  const call = async (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => rt?.close());

  it('lists the ten profiles, publicly, with the installed fixtures of each', async () => {
    const res = await call('GET', '/v1/conformance/profiles', undefined, null);
    expect(res.status).toBe(200);
    expect(res.body.profiles.map((p: { profile: string }) => p.profile)).toEqual(CONFORMANCE_PROFILE_IDS);
    const total = res.body.profiles.reduce((n: number, p: { fixtures: number }) => n + p.fixtures, 0);
    expect(total).toBeGreaterThanOrEqual(100);
    const fixtures = await call('GET', '/v1/conformance/fixtures?profile=ns.delegation.v1', undefined, null);
    expect(fixtures.status).toBe(200);
    expect(fixtures.body.fixtures.length).toBeGreaterThan(10);
    expect(fixtures.body.fixtures.every((f: { profile: string }) => f.profile === 'ns.delegation.v1')).toBe(true);
    expect(fixtures.body.fixtures[0].fixture.steps.length).toBe(fixtures.body.fixtures[0].steps);
    expect(fixtures.body.kit_digest).toMatch(/^sha-256:/);
    expect((await call('GET', '/v1/conformance/fixtures?profile=ns.nope.v1')).status).toBe(400);
  });

  it('runs the kit against itself, signs and stores the report, and revokes the credential it used', async () => {
    const activeTokens = async () =>
      (await call('GET', '/v1/tokens?limit=500')).body.items.filter((t: { revoked_at: unknown }) => !t.revoked_at);
    const activeBefore = (await activeTokens()).length;
    expect(await latestConformanceRun(rt.ctx)).toBeUndefined();
    const res = await call('POST', '/v1/conformance/runs', { profiles: ['ns.core.v1', 'ns.audit_chain.v1'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 2000)).toBe(201);
    const report = res.body;
    expect(report).toMatchObject({ schema_version: 'ns.conformance_report.v1', passed: true });
    expect(report.report_id).toMatch(/^ns:conformance_report:[0-9a-f-]{36}$/);
    expect(report.profiles.map((p: { profile: string }) => p.profile)).toEqual(['ns.core.v1', 'ns.audit_chain.v1']);
    expect(report.results.every((r: { status: string }) => r.status === 'passed')).toBe(true);
    expect(report.summary.fixtures).toBe(report.results.length);
    expect(installedKitForTests().schemas.validate('ns.conformance_report.v1', report)).toEqual([]);
    expect(
      installedKitForTests().schemas.validate('ns.conformance_report.v1', { ...report, passed: 'yes' }),
    ).not.toEqual([]);
    const jwks = (await call('GET', '/.well-known/jwks.json', undefined, null)).body as Jwks;
    expect(await verifyDocument(report, jwks)).toMatchObject({ valid: true });
    expect(await verifyDocument({ ...report, passed: false }, jwks)).toMatchObject({ valid: false });

    const stored = await call('GET', `/v1/conformance/runs/${report.report_id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual(report);
    expect(await latestConformanceRun(rt.ctx)).toMatchObject({ report_id: report.report_id, passed: true });

    // the run's own admin credential is revoked, and so is every credential the fixtures made (their cleanup)
    expect((await activeTokens()).length).toBe(activeBefore);
    const tokens = (await call('GET', '/v1/tokens?limit=500')).body.items;
    const minted = tokens.find((t: { label: string | null }) => t.label === `conformance run ${report.report_id}`);
    expect(minted).toMatchObject({ role: 'admin', revoked_at: expect.any(String) });

    // the stored report is write-once: the database refuses to change or remove it
    const db = rt.ctx.store.db;
    await expect(
      db.updateTable('conformance_runs').set({ passed: 0 }).where('report_id', '=', report.report_id).execute(),
    ).rejects.toThrow(/write-once/);
    await expect(db.deleteFrom('conformance_runs').where('report_id', '=', report.report_id).execute()).rejects.toThrow(
      /write-once/,
    );
  }, 120_000);

  it('refuses what it should', async () => {
    expect((await call('POST', '/v1/conformance/runs', { profiles: ['ns.nope.v1'] })).status).toBe(400);
    expect((await call('POST', '/v1/conformance/runs', { profiles: [] })).status).toBe(400);
    const runtime = (await call('POST', '/v1/tokens', { role: 'runtime' })).body.token;
    const forbidden = await call('POST', '/v1/conformance/runs', {}, runtime);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await call('POST', '/v1/conformance/runs', {}, null)).status).toBe(401);
    const missing = await call(
      'GET',
      '/v1/conformance/runs/ns:conformance_report:01a20b3a-7831-724e-b6bc-88b3d98052d9',
    );
    expect(missing).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await call('GET', '/v1/conformance/runs/nope')).body.code).toBe('invalid_id');
    const auditor = (await call('POST', '/v1/tokens', { role: 'auditor' })).body.token;
    expect((await call('POST', '/v1/conformance/runs', {}, auditor)).status).toBe(403);
  });

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [AAR_BIN, 'conformance', 'run', ...args], { env: process.env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('aar conformance run prints the table and exits 0 when every fixture passes, 1 when one fails', async () => {
    const fixtures = ['--fixture', 'core.problem.conflict', '--fixture', 'core.jwks'];
    const ok = await cli(['--base-url', base, '--token', ADMIN_TOKEN, ...fixtures]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^PASSED\s+core\.problem\.conflict\s+ns\.core\.v1/m);
    expect(ok.stdout).toMatch(/^2 passed, 0 failed, 0 skipped$/m);

    // problem documents served as plain JSON by a proxy in front of the same server
    const proxy = await startTamperingProxy(base, (a) =>
      String(a.headers['content-type']).startsWith('application/problem+json')
        ? { ...a, headers: { ...a.headers, 'content-type': 'application/json' } }
        : a,
    );
    try {
      const broken = await cli(['--base-url', proxy.base, '--public-url', base, '--token', ADMIN_TOKEN, ...fixtures]);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/^FAILED\s+core\.problem\.conflict\s.*application\/problem\+json/m);
      expect(broken.stdout).toMatch(/^1 passed, 1 failed, 0 skipped$/m);
    } finally {
      await proxy.close();
    }

    const noToken = await cli(['--base-url', base]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/--token/);
  }, 60_000);
});
