/**
 * The preview conformance profile `ns.preview.v1_1` (docs/conformance.md "The preview profile"): its fixtures run
 * black-box over a real socket against the service, with no capability enabled and with every one enabled, on each
 * database, and pass; the report says preview; certification refuses to attest it and writes nothing; the default
 * selection, the stable kit's count and digest are exactly what they are without the preview fixtures installed.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_PROFILE_IDS, verifyDocument, type ConformanceReport, type Jwks } from '@aar/core';
import { loadConformanceKit } from '../../src/services/conformance/load-kit.ts';
import { runConformanceKit, selectFixtures } from '../../src/services/conformance/run-kit.ts';
import { installedKitForTests } from '../support/conformance-kit.ts';
import { testDialects } from '../support/dialects.ts';
import { startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { startTamperingProxy } from '../support/tampering-proxy.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

const PREVIEW = 'ns.preview.v1_1';
const { kit, schemas } = installedKitForTests();

describe('the installed kit keeps preview fixtures apart', () => {
  it('has preview fixtures, none of them in the stable kit, whose count and digest match a kit without them', () => {
    expect(kit.preview.fixtures.length).toBeGreaterThanOrEqual(7);
    expect(kit.preview.fixtures.every((f) => f.fixture.profile === PREVIEW && f.file.startsWith('preview/'))).toBe(
      true,
    );
    expect(kit.fixtures.some((f) => f.fixture.profile === PREVIEW)).toBe(false);
    const copy = mkdtempSync(join(tmpdir(), 'aar-kit-copy-'));
    try {
      cpSync(kit.directory, copy, { recursive: true });
      rmSync(join(copy, 'preview'), { recursive: true, force: true });
      const without = loadConformanceKit(copy);
      expect(without.digest).toBe(kit.digest);
      expect(without.fixtures.length).toBe(kit.fixtures.length);
      expect(without.preview.fixtures).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('selects the ten by default, the preview fixtures only when named, and refuses a mixed selection', () => {
    const all = selectFixtures(kit);
    expect(all).toHaveLength(kit.fixtures.length);
    expect(new Set(all.map((f) => f.fixture.profile))).toEqual(new Set(CONFORMANCE_PROFILE_IDS));
    expect(selectFixtures(kit, [PREVIEW])).toEqual(kit.preview.fixtures);
    expect(() => selectFixtures(kit, [PREVIEW, 'ns.core.v1'])).toThrow(/runs alone/);
  });

  it('refuses a preview fixture outside preview/ and a stable one inside it', () => {
    const copy = mkdtempSync(join(tmpdir(), 'aar-kit-copy-'));
    try {
      cpSync(kit.directory, copy, { recursive: true });
      cpSync(join(copy, 'preview', 'graph-bounds.json'), join(copy, 'core', 'graph-bounds.json'));
      expect(() => loadConformanceKit(copy)).toThrow(/is a preview profile: move it to preview/);
      rmSync(join(copy, 'core', 'graph-bounds.json'));
      cpSync(join(copy, 'bundles', 'assemble.json'), join(copy, 'preview', 'assemble.json'));
      rmSync(join(copy, 'bundles', 'assemble.json'));
      expect(() => loadConformanceKit(copy)).toThrow(/is not a preview profile/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

const dialects = await testDialects();
const cases = dialects.flatMap((dialect) => [
  { dialect, optIn: [] as const, label: `${dialect}, AAR_OPT_IN empty` },
  { dialect, optIn: ['search', 'memory', 'reports'] as const, label: `${dialect}, AAR_OPT_IN=search,memory,reports` },
]);

describe.each(cases)('the preview profile against the service ($label)', ({ dialect, optIn }) => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime(optIn, { dialect });
  });
  afterAll(async () => rt?.close());

  it('passes every preview fixture, run by the kit over HTTP', async () => {
    const report = await runConformanceKit({
      kit,
      schemas,
      target: { baseUrl: rt.base, token: ADMIN_TOKEN },
      profiles: [PREVIEW],
      concurrency: 2,
    });
    const failed = report.results.filter((r) => r.status !== 'passed');
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(report.summary.passed).toBe(kit.preview.fixtures.length);
    expect(report).toMatchObject({
      passed: true,
      preview: true,
      profiles_requested: [PREVIEW],
      preview_kit: { version: kit.preview.version, fixtures: kit.preview.fixtures.length, digest: kit.preview.digest },
      // the stable kit is described as it always is: same count, same digest
      kit: { version: kit.version, fixtures: kit.fixtures.length, digest: kit.digest },
    });
    expect(report.profiles).toEqual([
      expect.objectContaining({ profile: PREVIEW, conformant: true, fixtures: kit.preview.fixtures.length }),
    ]);
  }, 120_000);

  it('self-runs it by name: a signed report that says preview; certification refuses it and writes nothing', async () => {
    const run = await rt.call('POST', '/v1/conformance/runs', { profiles: [PREVIEW] });
    expect(run.status, JSON.stringify(run.body).slice(0, 2000)).toBe(201);
    const report = run.body as ConformanceReport;
    expect(report).toMatchObject({ passed: true, preview: true, profiles_requested: [PREVIEW] });
    expectSchemaValid(report, 'ns.conformance_report.v1');
    const jwks = (await rt.call('GET', '/.well-known/jwks.json')).body as Jwks;
    expect((await verifyDocument(report, jwks)).valid).toBe(true);
    const before = await attestationRows(rt);
    const refused = await rt.call('POST', '/v1/certification/attestations', {
      conformance_report_id: report.report_id,
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'reference_invalid',
      errors: [expect.objectContaining({ path: '/conformance_report_id' })],
    });
    expect(refused.body.detail).toMatch(/preview/);
    expect(await attestationRows(rt)).toBe(before);
  }, 120_000);

  it('refuses a preview profile named beside a stable one (400 naming /profiles) and runs nothing', async () => {
    const res = await rt.call('POST', '/v1/conformance/runs', { profiles: [PREVIEW, 'ns.core.v1'] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('/profiles');
    const runs = await rt.ctx.store.db
      .selectFrom('conformance_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(runs.n)).toBe(1);
  });

  it('lists the preview profile apart, and its fixtures only when asked for', async () => {
    const profiles = await rt.call('GET', '/v1/conformance/profiles');
    expect(profiles.body.profiles.map((p: { profile: string }) => p.profile)).toEqual(CONFORMANCE_PROFILE_IDS);
    expect(profiles.body.preview_profiles).toEqual([
      expect.objectContaining({ profile: PREVIEW, preview: true, fixtures: kit.preview.fixtures.length }),
    ]);
    const all = await rt.call('GET', '/v1/conformance/fixtures');
    expect(all.body.fixtures).toHaveLength(kit.fixtures.length);
    expect(all.body.kit_digest).toBe(kit.digest);
    const preview = await rt.call('GET', `/v1/conformance/fixtures?profile=${PREVIEW}`);
    expect(preview.body.fixtures.map((f: { fixture_id: string }) => f.fixture_id)).toEqual(
      kit.preview.fixtures.map((f) => f.fixture.fixture_id),
    );
  });

  it('still attests a stable report, whose claims name no preview profile', async () => {
    const run = await rt.call('POST', '/v1/conformance/runs', { profiles: ['ns.marketplace.v1'] });
    expect(run.status).toBe(201);
    expect(run.body.preview).toBeUndefined();
    expect(run.body.preview_kit).toBeUndefined();
    const created = await rt.call('POST', '/v1/certification/attestations', {
      conformance_report_id: run.body.report_id,
    });
    expect(created.status).toBe(201);
    expect(created.body.claims.conformance_report.conformant_profiles).toEqual(['ns.marketplace.v1']);
  }, 120_000);
});

describe('aar conformance run --profile ns.preview.v1_1', () => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime([]);
  });
  afterAll(async () => rt?.close());

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [AAR_BIN, 'conformance', 'run', ...args], { env: process.env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('passes and says preview; named with a stable profile it is refused; on a broken deployment it fails', async () => {
    const ok = await cli(['--base-url', rt.base, '--token', ADMIN_TOKEN, '--profile', PREVIEW]);
    expect(ok.code, ok.stderr + ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^PASSED\s+preview\.graph\.principal-signed\s+ns\.preview\.v1_1/m);
    expect(ok.stdout).toMatch(/^conformant\s+ns\.preview\.v1_1/m);
    expect(ok.stdout).toMatch(/^PREVIEW profile: .*earns no certification/m);

    const mixed = await cli([
      '--base-url',
      rt.base,
      '--token',
      ADMIN_TOKEN,
      '--profile',
      PREVIEW,
      '--profile',
      'ns.core.v1',
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/runs alone/);

    // a gateway that rewrites one member of every authority graph it passes on: the signature no longer verifies
    const proxy = await startTamperingProxy(rt.base, (a) =>
      a.path.startsWith('/v1/graph/principals/') && a.status === 200
        ? { ...a, body: a.body.replace('"day":"2', '"day":"1') }
        : a,
    );
    try {
      const fixtures = ['--fixture', 'preview.graph.principal-signed', '--fixture', 'preview.graph.bounds'];
      const args = ['--base-url', proxy.base, '--public-url', rt.base, '--token', ADMIN_TOKEN, '--profile', PREVIEW];
      const broken = await cli([...args, ...fixtures]);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/^FAILED\s+preview\.graph\.principal-signed\s.*does not verify/m);
      expect(broken.stdout).toMatch(/^PASSED\s+preview\.graph\.bounds/m);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

async function attestationRows(rt: OptInRuntime): Promise<number> {
  const row = await rt.ctx.store.db
    .selectFrom('certification_attestations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
