/**
 * Self-audit on each database (CONTRACT section 14, docs/compliance.md "Self-audit"): a healthy deployment passes
 * all nine checks in a signed, stored, schema-valid report; then each check is made to fail for real, the way an
 * operator or an attacker would: a key file chmod'ed 0644, entries left without a checkpoint while the (test) clock
 * runs, tokens idle for 90 days and a signing key a year old, a card number written into a stored decision and a
 * DELETE guard dropped with database access, an audit entry edited, webhooks allowed in clear text.
 * Each failure names its evidence and a remedy, and never repeats a secret or the card number.
 */
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDocument, type Jwks } from '@aar/core';
import { keysDir } from '../../src/keys/key-files.ts';
import { SELF_AUDIT_CHECKS } from '../../src/services/self-audit/self-audit-report.ts';
import { signScheduledCheckpoint } from '../../src/workers/checkpoint-worker.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const DAY = 24 * 3600;

type Check = { check: string; status: string; summary: string; evidence: any; remedy?: string }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(dialects)('self-audit on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let jwks: Jwks;
  let auditor: string;
  let base: string;
  const clock = new SteppingClock();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function audit(): Promise<{ report: any; check: (name: string) => Check; text: string }> {
    const res = await world.call('POST', '/v1/self-audit/runs', {});
    expect(res.status).toBe(201);
    const report = res.body;
    expectSchemaValid(report);
    expect(report.checks.map((c: Check) => c.check)).toEqual([...SELF_AUDIT_CHECKS]);
    for (const c of report.checks as Check[]) {
      if (c.status !== 'pass') expect(c.remedy, c.check).toEqual(expect.any(String));
    }
    expect(report.passed).toBe(report.checks.every((c: Check) => c.status !== 'fail'));
    return {
      report,
      check: (name) => report.checks.find((c: Check) => c.check === name),
      text: JSON.stringify(report),
    };
  }

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect, clock });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
    auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
    const allowed = (await world.authorize(world.purchase(30))).body;
    expect(allowed.decision).toBe('allow_with_constraints');
    await world.must('GET', `/v1/evidence-packs/${allowed.evidence_refs[0]}`);
    // the kit itself, run by the service against itself (one small profile)
    const run = await world.call('POST', '/v1/conformance/runs', { profiles: ['ns.core.v1'] });
    expect(run.status).toBe(201);
    expect(run.body.passed).toBe(true);
    await world.must('POST', '/v1/audit/checkpoint', {});
  });
  afterAll(async () => rt?.close());

  it('a healthy deployment passes all nine checks; the report is signed, stored and served as signed', async () => {
    const { report, check } = await audit();
    expect(report.checks.filter((c: Check) => c.status !== 'pass')).toEqual([]);
    expect(report).toMatchObject({ passed: true, summary: { pass: 9, warn: 0, fail: 0 } });
    expect((await verifyDocument(report, jwks)).valid).toBe(true);
    expect(check('audit_chain_verifies').evidence).toMatchObject({ valid: true });
    expect(check('retention_settings').evidence.missing_delete_guard).toEqual([]);
    expect(check('retention_settings').evidence.write_once_tables).toEqual(
      expect.arrayContaining(['decisions', 'audit_entries', 'self_audit_runs', 'conformance_runs']),
    );
    expect(check('no_card_numbers_stored').evidence.rows_scanned).toBeGreaterThan(10);
    expect(check('conformance_last_run').evidence.last_run).toMatchObject({ passed: true });

    const stored = await fetch(`${base}/v1/self-audit/runs/${report.run_id}`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    expect(stored.status).toBe(200);
    expect(JSON.parse(await stored.text())).toEqual(report);
    expect(
      (
        await world.call(
          'GET',
          '/v1/self-audit/runs/ns:self_audit_run:00000000-0000-7000-8000-000000000000',
          undefined,
          auditor,
        )
      ).status,
    ).toBe(404);
    expect((await world.call('GET', '/v1/self-audit/runs/nope', undefined, auditor)).body.code).toBe('invalid_id');
    // running one is admin work: it reads key-file modes and every stored value
    expect((await world.call('POST', '/v1/self-audit/runs', {}, auditor)).status).toBe(403);
    // write-once: the stored report cannot be edited
    await expect(
      sql`update self_audit_runs set passed = 0 where run_id = ${report.run_id}`.execute(rt.ctx.store.db),
    ).rejects.toThrow(/write-once/);
  });

  it('key_files_private fails for a key file readable by others', async () => {
    const dir = keysDir(rt.dataDir);
    const file = readdirSync(dir).find((f) => f.endsWith('.json'))!;
    chmodSync(join(dir, file), 0o644);
    try {
      const { check } = await audit();
      expect(check('key_files_private')).toMatchObject({
        status: 'fail',
        evidence: { exposed: [file] },
        remedy: expect.stringContaining(`chmod 600 ${join(dir, file)}`),
      });
    } finally {
      chmodSync(join(dir, file), 0o600);
    }
    expect((await audit()).check('key_files_private').status).toBe('pass');
  });

  it('checkpoints_recent fails when entries wait for a checkpoint longer than the schedule allows', async () => {
    await world.authorize(world.purchase(5));
    expect((await audit()).check('checkpoints_recent').status).toBe('pass'); // just written: within the schedule
    clock.advance(10 * 60);
    const { check } = await audit();
    expect(check('checkpoints_recent')).toMatchObject({
      status: 'fail',
      evidence: { stale_after_seconds: 60, uncovered_entries: expect.any(Number) },
      remedy: expect.stringContaining('POST /v1/audit/checkpoint'),
    });
    expect(check('checkpoints_recent').evidence.uncovered_for_seconds).toBeGreaterThanOrEqual(600);
    await world.must('POST', '/v1/audit/checkpoint', {});
    expect((await audit()).check('checkpoints_recent').status).toBe('pass');
  });

  it('checkpoints_recent passes on an idle server (only announcements uncovered) and fails once an arrival waits', async () => {
    await world.must('POST', '/v1/entities', { type: 'person', id: 'idle-1', display_name: 'Idle One' });
    // the scheduler's tick: a checkpoint, then its announcement, which no checkpoint covers while the log is idle
    expect(await signScheduledCheckpoint(rt.ctx)).not.toBeNull();
    expect(await signScheduledCheckpoint(rt.ctx)).toBeNull(); // idle: the announcement is not an arrival
    clock.advance(10 * 60);
    expect((await audit()).check('checkpoints_recent')).toMatchObject({
      status: 'pass',
      evidence: { uncovered_entries: 1, uncovered_arrivals: 0 },
    });

    // the scheduler stops: a real entry arrives and no tick covers it
    await world.must('POST', '/v1/entities', { type: 'person', id: 'idle-2', display_name: 'Idle Two' });
    const young = (await audit()).check('checkpoints_recent');
    expect(young).toMatchObject({ status: 'pass', evidence: { uncovered_entries: 2, uncovered_arrivals: 1 } });
    expect(young.evidence.uncovered_for_seconds).toBeLessThan(60); // younger than the threshold
    clock.advance(61);
    const { check } = await audit();
    expect(check('checkpoints_recent')).toMatchObject({
      status: 'fail',
      evidence: { uncovered_entries: 2, uncovered_arrivals: 1, stale_after_seconds: 60 },
    });
    expect(check('checkpoints_recent').evidence.uncovered_for_seconds).toBeGreaterThan(60);
    const remedy = check('checkpoints_recent').remedy!;
    for (const named of ['scheduled checkpoint failed', 'STARTING UNVERIFIED', 'POST /v1/audit/checkpoint']) {
      expect(remedy).toContain(named);
    }
    expect(remedy).toContain('aar verify-audit');
    expect(await signScheduledCheckpoint(rt.ctx)).not.toBeNull(); // the scheduler again
    expect((await audit()).check('checkpoints_recent').status).toBe('pass');
  });

  it('tokens_unused_90_days names idle tokens, conformance goes stale, then the signing key ages out', async () => {
    const idle = (await world.must('POST', '/v1/tokens', { role: 'runtime', label: 'forgotten' })).token_id;
    clock.advance(91 * DAY);
    await world.must('POST', '/v1/audit/checkpoint', {});
    const { check, text } = await audit();
    const tokens = check('tokens_unused_90_days');
    expect(tokens.status).toBe('fail');
    const named = tokens.evidence.unused.map((t: { token_id: string }) => t.token_id);
    expect(named).toContain(idle);
    // the admin token is in use (this very run): it is not named
    const adminId = (await world.must('GET', '/v1/tokens?limit=100')).items.find(
      (t: { label: string | null }) => t.label === 'bootstrap',
    ).token_id;
    expect(named).not.toContain(adminId);
    expect(text).not.toContain(world.runtimeToken);
    expect(check('conformance_last_run')).toMatchObject({ status: 'fail', evidence: { age_days: 91 } });
    expect(check('signing_key_age').status).toBe('pass');

    clock.advance(275 * DAY);
    await world.must('POST', '/v1/audit/checkpoint', {});
    expect((await audit()).check('signing_key_age')).toMatchObject({
      status: 'fail',
      evidence: { age_days: 366, max_age_days: 365 },
      remedy: expect.stringContaining('aar keys rotate'),
    });
  });

  it('webhook_endpoint_profiles fails while clear-text webhooks are allowed, and for an http endpoint', async () => {
    rt.ctx.config.webhookAllowInsecure = true;
    const endpoint = (
      await world.must('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', profile: 'shared_secret' })
    ).endpoint_id;
    let result = await audit();
    expect(result.check('webhook_endpoint_profiles')).toMatchObject({
      status: 'fail',
      evidence: { allow_insecure: true, not_https: [endpoint], shared_secret: [endpoint] },
    });
    expect(result.text).not.toContain('127.0.0.1:9/hook');
    rt.ctx.config.webhookAllowInsecure = false;
    result = await audit();
    expect(result.check('webhook_endpoint_profiles')).toMatchObject({
      status: 'fail',
      evidence: { not_https: [endpoint] },
    });
    await world.must('POST', `/v1/webhook-endpoints/${endpoint}/disable`, {});
    expect((await audit()).check('webhook_endpoint_profiles').status).toBe('pass');

    // an https endpoint on the shared_secret profile: a warning (the receiver could forge its own HMAC), not a failure
    const ctx = rt.ctx as { resolveHost?: unknown };
    ctx.resolveHost = async () => [{ address: '93.184.216.34', family: 4 }];
    try {
      const symmetric = (
        await world.must('POST', '/v1/webhook-endpoints', {
          url: 'https://hooks.example.com/in',
          profile: 'shared_secret',
        })
      ).endpoint_id;
      const warned = await audit();
      expect(warned.check('webhook_endpoint_profiles')).toMatchObject({
        status: 'warn',
        evidence: { shared_secret: [symmetric], not_https: [] },
        remedy: expect.stringContaining('asymmetric'),
      });
      expect(warned.report.summary.warn).toBeGreaterThanOrEqual(1);
      await world.must('POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/signed', profile: 'cose' });
      await world.must('POST', `/v1/webhook-endpoints/${symmetric}/disable`, {});
      expect((await audit()).check('webhook_endpoint_profiles')).toMatchObject({
        status: 'pass',
        evidence: { enabled_by_profile: { cose: 1, shared_secret: 0 } },
      });
    } finally {
      delete ctx.resolveHost;
    }
  });

  it('a card number written into a stored decision, a dropped DELETE guard and an edited entry are all found', async () => {
    const db = rt.ctx.store.db;
    const victim = (await world.authorize(world.purchase(7))).body.policy_decision_id as string;
    const planted = '{"note":"card 4111 1111 1111 1111"}';
    // what someone with database access does: the guards out of the way, then the edits
    if (dialect === 'postgres') {
      await db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`update decisions set request = ${planted} where policy_decision_id = ${victim}`.execute(trx);
        await sql`update audit_entries set kind = 'ns.forged' where idx = 0`.execute(trx);
      });
      await sql`drop trigger decisions_no_delete on decisions`.execute(db);
    } else {
      const triggers = (
        await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'trigger' and tbl_name in ('decisions', 'audit_entries')`.execute(
          db,
        )
      ).rows;
      for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
      await sql`update decisions set request = ${planted} where policy_decision_id = ${victim}`.execute(db);
      await sql`update audit_entries set kind = 'ns.forged' where idx = 0`.execute(db);
    }
    const { check, text, report } = await audit();
    expect(check('no_card_numbers_stored')).toMatchObject({
      status: 'fail',
      evidence: {
        card_numbers_found: 1,
        findings: [{ table: 'decisions', id: victim, column: 'request', pointer: '/note' }],
      },
      remedy: expect.stringContaining('PCI DSS'),
    });
    expect(text).not.toMatch(/4111/);
    expect(check('retention_settings')).toMatchObject({ status: 'fail' });
    expect(check('retention_settings').evidence.missing_delete_guard).toContain('decisions');
    expect(check('audit_chain_verifies')).toMatchObject({ status: 'fail', evidence: { valid: false } });
    // the offline check of the audit log, not the delegation-chain verifier
    expect(check('audit_chain_verifies').remedy).toContain('aar verify-audit');
    expect(check('audit_chain_verifies').remedy).not.toContain('verify-chain');
    expect(report).toMatchObject({ passed: false });
    expect(report.summary.fail).toBeGreaterThanOrEqual(3);
  });
});
