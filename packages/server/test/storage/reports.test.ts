/**
 * Compliance reports end to end over real sockets, on SQLite and PostgreSQL (docs/reports.md): an hourly schedule
 * on a controllable clock reports the hour at its end (the report worker running on its timer), the report's counts
 * are the decisions made through signed authorize calls in that hour and nothing of the next, its coverage is the
 * compliance projection of the same hour, `ns.report.generated` reaches a real webhook receiver, and what arrives
 * verifies: the envelope against the JWKS, the downloaded report against the event's digest and the JWKS, the
 * report against its JSON Schema, its OSCAL form against NIST's schema. Then the refusals: capability off, scopes
 * and roles, a schedule more often than hourly (nothing written), bad periods; and the database's write-once guard.
 */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { canonicalJson, verifyDocument, type Jwks } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import { checkReports } from '../../src/audit/record-checks/check-reports.ts';
import { RecordFindings } from '../../src/audit/record-checks/record-findings.ts';
import { createSchedule } from '../../src/services/reports/report-schedules.ts';
import { generateDueReports } from '../../src/services/reports/scheduled-reports.ts';
import { startReportWorker } from '../../src/workers/report-worker.ts';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { testDialects } from '../support/dialects.ts';
import { mintToken, startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const dialects = await testDialects();
const HOUR = 3_600_000;
const sha256 = (text: string) => `sha-256:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => void;
// NIST's schema (draft-07), read from ../shared/vectors/oscal, never copied into the project
const oscalSchema = readSharedJson<object>('oscal', 'oscal_assessment-results_schema-1.1.2.json');

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

async function raw(base: string, path: string, token: string) {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(dialects)('compliance reports on %s', (dialect) => {
  let rt: OptInRuntime;
  let world: World;
  let clock: SteppingClock;
  let receiver: WebhookReceiver;
  let webhooks: WebhookWorker;
  let jwks: Jwks;
  let writer: string; // admin, reports.read + reports.write
  let reader: string; // auditor, reports.read
  let hourStart: number;
  let scheduleId: string;
  let reportId: string;
  let reportText: string;
  const made: Array<{ decision: string; reason: string; amount: number }> = [];

  beforeAll(async () => {
    // 5 minutes into the next whole hour: the schedule's first period is that hour
    clock = new SteppingClock();
    const real = Date.now();
    hourStart = Math.ceil(real / HOUR) * HOUR;
    clock.offsetMs = hourStart + 5 * 60_000 - real;
    rt = await startOptInRuntime(['reports'], { dialect, clock, config: { webhookAllowInsecure: true } });
    world = await buildPurchaseWorld(rt.base, ADMIN_TOKEN, {
      signerNow: () => Math.floor(clock.now().getTime() / 1000),
    });
    jwks = (await rt.call('GET', '/.well-known/jwks.json')).body;
    writer = await mintToken(rt.call, { role: 'admin', scopes: ['reports.read', 'reports.write'] });
    reader = await mintToken(rt.call, { role: 'auditor', scopes: ['reports.read'] });
    receiver = await startReceiver();
    const endpoint = await rt.call('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'asymmetric',
      event_types: ['ns.report.generated'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    webhooks = new WebhookWorker(rt.ctx, { pollMs: 100 });
    await webhooks.start();
  }, 60_000);

  afterAll(async () => {
    await webhooks?.stop();
    await receiver?.close();
    await rt?.close();
  });

  it('an hourly schedule reports the hour at its end: its decisions, delivered to a webhook, verifiable', async () => {
    const created = await rt.call(
      'POST',
      '/v1/reports/schedules',
      { every: 'hour', frameworks: ['soc2', 'eu_ai_act'], description: 'hourly control report' },
      writer,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    scheduleId = created.body.schedule_id;
    expect(scheduleId).toMatch(/^ns:report_schedule:[0-9a-f-]{36}$/);
    expect(created.body.next_period).toEqual({
      start: new Date(hourStart).toISOString(),
      end: new Date(hourStart + HOUR).toISOString(),
    });

    // the hour's decisions, through signed authorize calls
    const purchases: Array<[number, Record<string, unknown>]> = [
      [10, {}],
      [20, {}],
      [45, {}], // above the approval threshold
      [10, { resource: { merchant_id: 'casino-1', amount: 10, currency: 'EUR' } }], // blocked category
      [60, {}], // above the agent threshold
      [10, { resource: { merchant_id: 'shop-us', amount: 10, currency: 'EUR' } }], // jurisdiction
    ];
    const ids: string[] = [];
    for (const [amount, extra] of purchases) {
      const res = await world.authorize(world.purchase(amount, extra));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      made.push({ decision: res.body.decision, reason: res.body.reason, amount });
      ids.push(res.body.policy_decision_id);
    }
    expect(made.map((m) => m.decision).sort()).toEqual(
      ['allow_with_constraints', 'allow_with_constraints', 'deny', 'deny', 'deny', 'require_approval'].sort(),
    );
    const executed = await world.call(
      'POST',
      '/v1/runtime/outcomes',
      { policy_decision_id: ids[0], outcome: 'executed' },
      world.runtimeToken,
    );
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    const revoked = await world.call('POST', `/v1/grants/${world.grant.grant_id}/revoke`, {});
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);

    // nothing is due before the hour ends
    expect(await generateDueReports(rt.ctx)).toEqual([]);
    // the next hour: one more decision, which belongs to the next period
    clock.advance(3600);
    const later = await world.authorize(world.purchase(10));
    expect(later.status).toBe(200);

    const stop = startReportWorker(rt.ctx, { intervalMs: 100, onError: (e) => console.error(e) });
    let listed;
    try {
      listed = await until('the report', async () => {
        const page = await rt.call('GET', '/v1/reports', undefined, reader);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        return page.body.items.length > 0 ? page.body : undefined;
      });
      // a few more ticks: still one report for the hour
      await new Promise((r) => setTimeout(r, 400));
    } finally {
      await stop();
    }
    const page = (await rt.call('GET', '/v1/reports', undefined, reader)).body;
    expect(page.items).toHaveLength(1);
    const item = listed.items[0];
    reportId = item.report_id;
    expect(item).toMatchObject({
      schedule_id: scheduleId,
      period: { start: new Date(hourStart).toISOString(), end: new Date(hourStart + HOUR).toISOString() },
      download_path: `/v1/reports/${reportId}`,
    });

    // the download: the stored bytes, whose hash is the digest, signed by a key of the JWKS, schema-valid
    const download = await raw(rt.base, item.download_path, reader);
    expect(download.status).toBe(200);
    expect(download.type).toMatch(/^application\/json/);
    reportText = download.text;
    expect(sha256(reportText)).toBe(item.digest);
    const report = JSON.parse(reportText);
    expect(canonicalJson(report)).toBe(reportText);
    expect((await verifyDocument(report, jwks)).valid).toBe(true);
    expect((await verifyDocument({ ...report, decisions: { ...report.decisions, total: 0 } }, jwks)).valid).toBe(false);
    expectSchemaValid(report);

    // the counts are the hour's decisions, and nothing of the next hour
    const count = (decision: string) => made.filter((m) => m.decision === decision).length;
    expect(report.period).toEqual({ ...item.period, every: 'hour' });
    expect(report.decisions.total).toBe(made.length);
    expect(report.decisions.by_decision).toEqual({
      allow_with_constraints: count('allow_with_constraints'),
      require_approval: count('require_approval'),
      deny: count('deny'),
    });
    expect(report.decisions.by_outcome).toMatchObject({ executed: 1, reserved: 1, failed: 0, refunded: 0 });
    const allowedMinor = made
      .filter((m) => m.decision === 'allow_with_constraints')
      .reduce((n, m) => n + m.amount * 100, 0);
    expect(report.decisions.allowed_amounts).toEqual([{ currency: 'EUR', amount_minor: allowedMinor, count: 2 }]);
    expect(report.decisions.executed_amounts).toEqual([{ currency: 'EUR', amount_minor: 1000, count: 1 }]);
    const denials = made.filter((m) => m.decision === 'deny').map((m) => m.reason);
    expect(report.denials.total).toBe(denials.length);
    expect(report.denials.by_reason.map((r: { reason: string }) => r.reason).sort()).toEqual([...denials].sort());
    // the approval's 15 minutes have passed by the time the report is made: it reads expired
    expect(report.approvals).toEqual({
      total: 1,
      by_status: { pending: 0, approved: 0, rejected: 0, expired: 1, consumed: 0 },
    });
    expect(report.revocations).toEqual({ grants_revoked: 1, revoke_operations: 1 });

    // the coverage is the compliance projection of the same hour
    expect(report.coverage.map((c: { framework: string }) => c.framework)).toEqual(['soc2', 'eu_ai_act']);
    for (const coverage of report.coverage) {
      expect(coverage.evidence_packs).toEqual({ in_period: made.length, projected: made.length });
      const projection = await rt.call('POST', '/v1/compliance/projections', {
        framework: coverage.framework,
        from: item.period.start,
        to: item.period.end,
      });
      expect(projection.status, JSON.stringify(projection.body)).toBe(200);
      expect(coverage.rule_pack).toEqual(projection.body.rule_pack);
      expect(coverage.summary).toEqual(projection.body.summary);
      expect(coverage.controls.map((c: { status: string; packs: unknown }) => [c.status, c.packs])).toEqual(
        projection.body.controls.map((c: { status: string; packs: unknown }) => [c.status, c.packs]),
      );
    }

    // the webhook: ns.report.generated, signed, naming the report and its digest
    const [delivery] = await receiver.waitFor(1);
    const envelope = JSON.parse(delivery!.body.toString('utf8'));
    expect(envelope).toMatchObject({
      event_type: 'ns.report.generated',
      subject_ref: reportId,
      reason_code: 'report_scheduled_period_ended',
      actor_entity_id: null,
      data: {
        report_id: reportId,
        schedule_id: scheduleId,
        period_start: item.period.start,
        period_end: item.period.end,
        digest: item.digest,
        download_path: item.download_path,
        frameworks: ['soc2', 'eu_ai_act'],
      },
    });
    expect((await verifyDocument(envelope, jwks)).valid).toBe(true);
    // a receiver follows the link and checks the bytes against the signed digest
    const fetched = await raw(rt.base, envelope.data.download_path, reader);
    expect(sha256(fetched.text)).toBe(envelope.data.digest);

    // the schedule moved on to the next hour
    const schedule = await rt.call('GET', `/v1/reports/schedules/${scheduleId}`, undefined, reader);
    expect(schedule.body.next_period.start).toBe(item.period.end);
  });

  it('the next period is reported once, at its end, with the decision made in it', async () => {
    expect(await generateDueReports(rt.ctx)).toEqual([]);
    clock.advance(3600);
    const made = await generateDueReports(rt.ctx);
    expect(made).toHaveLength(1);
    expect(await generateDueReports(rt.ctx)).toEqual([]);
    const second = JSON.parse((await raw(rt.base, `/v1/reports/${made[0]!.report_id}`, reader)).text);
    expect(second.period.start).toBe(new Date(hourStart + HOUR).toISOString());
    expect(second.decisions.total).toBe(1);
    expect(second.decisions.by_decision.deny).toBe(1); // the grant was revoked the hour before
    expect(second.denials.by_reason).toEqual([{ reason: 'authority_revoked', count: 1 }]);
    expect(second.revocations).toEqual({ grants_revoked: 0, revoke_operations: 0 });
    const page = await rt.call('GET', `/v1/reports?schedule_id=${scheduleId}&limit=1`, undefined, reader);
    expect(page.body.items.map((i: { report_id: string }) => i.report_id)).toEqual([made[0]!.report_id]);
    const older = await rt.call(
      'GET',
      `/v1/reports?schedule_id=${scheduleId}&cursor=${page.body.next_cursor}`,
      undefined,
      reader,
    );
    expect(older.body.items.map((i: { report_id: string }) => i.report_id)).toEqual([reportId]);
    expect(older.body.next_cursor).toBeNull();
  });

  describe.skipIf(!oscalSchema)('?format=oscal', () => {
    it('one framework as OSCAL assessment-results, valid against NIST\u2019s schema, carrying the signed report', async () => {
      const ajv = new Ajv({ allErrors: true, strict: false });
      addFormats(ajv);
      const validate = ajv.compile(oscalSchema!);
      for (const framework of ['soc2', 'eu_ai_act']) {
        const res = await rt.call(
          'GET',
          `/v1/reports/${reportId}?format=oscal&framework=${framework}`,
          undefined,
          reader,
        );
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        validate(res.body);
        expect(validate.errors ?? []).toEqual([]);
        const ar = res.body['assessment-results'];
        expect(ar.results[0].start).toBe(new Date(hourStart).toISOString());
        const embedded = Buffer.from(ar['back-matter'].resources[0].base64.value, 'base64').toString('utf8');
        expect(embedded).toBe(reportText);
        const report = JSON.parse(reportText);
        const coverage = report.coverage.find((c: { framework: string }) => c.framework === framework);
        const assessed = coverage.controls.filter((c: { status: string }) => c.status !== 'not_applicable');
        expect(ar.results[0].findings ?? []).toHaveLength(assessed.length);
      }
      const twoFrameworks = await rt.call('GET', `/v1/reports/${reportId}?format=oscal`, undefined, reader);
      expect(twoFrameworks.status).toBe(400);
      expect(twoFrameworks.body.errors[0].path).toBe('/query/framework');
      const notCovered = await rt.call('GET', `/v1/reports/${reportId}?format=oscal&framework=dora`, undefined, reader);
      expect(notCovered.status).toBe(400);
      expect(notCovered.body.errors[0].path).toBe('/query/framework');
    });
  });

  it('on demand: the same hour counted again, stored with its event; no framework, no OSCAL form', async () => {
    const first = JSON.parse(reportText);
    const res = await rt.call('POST', '/v1/reports', { from: first.period.start, to: first.period.end }, reader);
    expect(res.status).toBe(403); // an auditor's token without reports.write
    expect(res.body.code).toBe('scope_missing');
    const made = await rt.call('POST', '/v1/reports', { from: first.period.start, to: first.period.end }, writer);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ schedule_id: null, period: { ...first.period, every: null }, coverage: [] });
    expect(made.body.decisions).toEqual(first.decisions);
    expect(made.body.denials).toEqual(first.denials);
    expectSchemaValid(made.body);
    expect((await verifyDocument(made.body, jwks)).valid).toBe(true);
    const stored = await raw(rt.base, `/v1/reports/${made.body.report_id}`, reader);
    expect(stored.text).toBe(canonicalJson(made.body));
    const event = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('subject_ref', '=', made.body.report_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.envelope)).toMatchObject({
      reason_code: 'report_requested',
      data: { digest: sha256(stored.text) },
    });
    const oscal = await rt.call('GET', `/v1/reports/${made.body.report_id}?format=oscal`, undefined, reader);
    expect(oscal.status).toBe(404);
    expect(oscal.body.detail).toMatch(/covers no compliance framework/);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const db = rt.ctx.store.db;
    const counts = async () => ({
      schedules: (
        await db
          .selectFrom('report_schedules')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
      reports: (
        await db
          .selectFrom('compliance_reports')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
      events: (
        await db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
      audit: (
        await db
          .selectFrom('audit_entries')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    });
    const before = await counts();
    const refusals: Array<[unknown, string]> = [
      [{ every: 'PT30M' }, '/every'],
      [{ every: 'PT59M59S' }, '/every'],
      [{ every: 'minute' }, '/every'],
      [{ every: 'P1M' }, '/every'],
      [{ every: 'day', frameworks: ['soc2', 'nope'] }, '/frameworks/1'],
      [{ every: 'day', frameworks: ['soc2', 'soc2'] }, '/frameworks/1'],
      [{ every: 'day', starts_at: '2001-01-01T00:00:00Z' }, '/starts_at'],
      [{ every: 'day', description: 'two\nlines' }, '/description'],
    ];
    for (const [body, path] of refusals) {
      const res = await rt.call('POST', '/v1/reports/schedules', body, writer);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const tooFrequent = await rt.call('POST', '/v1/reports/schedules', { every: 'PT30M' }, writer);
    expect(tooFrequent.body.detail).toMatch(/more often than once an hour/);
    const now = clock.now().getTime();
    const periods: Array<[unknown, string]> = [
      [{ from: new Date(now - HOUR).toISOString(), to: new Date(now + HOUR).toISOString() }, '/to'],
      [{ from: new Date(now - HOUR).toISOString(), to: new Date(now - 2 * HOUR).toISOString() }, '/from'],
      [{ from: new Date(now - 400 * 24 * HOUR).toISOString(), to: new Date(now).toISOString() }, '/from'],
      [
        { from: new Date(now - HOUR).toISOString(), to: new Date(now).toISOString(), frameworks: ['x1'] },
        '/frameworks/0',
      ],
    ];
    for (const [body, path] of periods) {
      const res = await rt.call('POST', '/v1/reports', body, writer);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await rt.call('GET', '/v1/reports/ns:compliance_report:nope', undefined, reader)).status).toBe(400);
    expect(
      (await rt.call('GET', '/v1/reports/ns:compliance_report:019ad5c0-0001-7c3e-8d2a-5b6c7d8e9f01', undefined, reader))
        .status,
    ).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('refuses by scope and role, whatever the role', async () => {
    const noScope = await rt.call('GET', '/v1/reports', undefined, ADMIN_TOKEN);
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('scope_missing');
    const auditorSchedules = await rt.call('POST', '/v1/reports/schedules', { every: 'day' }, reader);
    expect(auditorSchedules.status).toBe(403);
    expect(auditorSchedules.body.code).toBe('forbidden');
    const runtime = await mintToken(rt.call, { role: 'runtime', scopes: ['reports.read'] });
    const runtimeRead = await rt.call('GET', '/v1/reports', undefined, runtime);
    expect(runtimeRead.status).toBe(403);
    expect(runtimeRead.body.code).toBe('forbidden');
    const deleteWithoutWrite = await rt.call('DELETE', `/v1/reports/schedules/${scheduleId}`, undefined, reader);
    expect(deleteWithoutWrite.status).toBe(403);
  });

  it('a deleted schedule generates nothing more; deleting again writes nothing', async () => {
    const deleted = await rt.call('DELETE', `/v1/reports/schedules/${scheduleId}`, undefined, writer);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body.deleted_at).toEqual(expect.any(String));
    const events = await rt.ctx.store.db.selectFrom('events').select('event_id').execute();
    const again = await rt.call('DELETE', `/v1/reports/schedules/${scheduleId}`, undefined, writer);
    expect(again.body).toEqual(deleted.body);
    expect(await rt.ctx.store.db.selectFrom('events').select('event_id').execute()).toHaveLength(events.length);
    clock.advance(3 * 3600);
    expect(await generateDueReports(rt.ctx)).toEqual([]);
  });

  it('the audit chain verifies with the reports, schedules and their events in it', async () => {
    const verified = await rt.call('GET', '/v1/audit/verify');
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.valid, JSON.stringify(verified.body)).toBe(true);
  });

  it('the record check holds reports and schedules to their signatures and chained events', async () => {
    const db = rt.ctx.store.db;
    const check = async () => {
      const findings = new RecordFindings(0);
      await checkReports(db, findings, jwks, 2);
      return findings.first;
    };
    expect(await check()).toBeUndefined();
    const edits: Array<[string, (d: typeof db) => Promise<unknown>, string, string]> = [
      [
        'a report\u2019s digest',
        (d) =>
          d.updateTable('compliance_reports').set({ digest: 'sha-256:x' }).where('report_id', '=', reportId).execute(),
        'compliance_reports',
        'digest',
      ],
      [
        'a report\u2019s period',
        (d) =>
          d
            .updateTable('compliance_reports')
            .set({ period_end: new Date(hourStart + 2 * HOUR).toISOString() })
            .where('report_id', '=', reportId)
            .execute(),
        'compliance_reports',
        'period_end',
      ],
      [
        'a schedule\u2019s cursor moved back',
        (d) =>
          d
            .updateTable('report_schedules')
            .set({ next_start: new Date(hourStart).toISOString() })
            .where('schedule_id', '=', scheduleId)
            .execute(),
        'report_schedules',
        'next_start',
      ],
      [
        'a schedule undeleted',
        (d) =>
          d.updateTable('report_schedules').set({ deleted_at: null }).where('schedule_id', '=', scheduleId).execute(),
        'report_schedules',
        'deleted_at',
      ],
    ];
    for (const [what, edit, table, detail] of edits) {
      const before = await db
        .selectFrom(table as 'compliance_reports')
        .selectAll()
        .execute();
      await bypassingGuards(db, dialect, async (d) => void (await edit(d)));
      const found = await check();
      expect(found, what).toMatchObject({ record: { table }, detail });
      // put it back as it was
      await bypassingGuards(db, dialect, async (d) => {
        for (const row of before as Array<Record<string, unknown>>) {
          const key = table === 'compliance_reports' ? 'report_id' : 'schedule_id';
          const { seq: _seq, ...rest } = row;
          await d
            .updateTable(table as 'compliance_reports')
            .set(rest as never)
            .where(key as 'report_id', '=', row[key] as string)
            .execute();
        }
      });
      expect(await check(), `${what}, restored`).toBeUndefined();
    }
  });

  it('the database refuses to change or delete a stored report', async () => {
    const db = rt.ctx.store.db;
    await expect(
      db.updateTable('compliance_reports').set({ digest: 'sha-256:x' }).where('report_id', '=', reportId).execute(),
    ).rejects.toThrow(/write-once/);
    await expect(db.deleteFrom('compliance_reports').where('report_id', '=', reportId).execute()).rejects.toThrow(
      /write-once/,
    );
    const row = await db
      .selectFrom('compliance_reports')
      .select('document')
      .where('report_id', '=', reportId)
      .executeTakeFirstOrThrow();
    expect(row.document).toBe(reportText);
  });
});

describe.each(dialects)('the capability switched off, on %s', (dialect) => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime([], { dialect });
  }, 60_000);
  afterAll(async () => rt?.close());

  it('answers 403 capability_not_enabled to every operation, admin included, before looking at the request', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/reports'],
      ['GET', '/v1/reports/ns:compliance_report:nope'],
      ['POST', '/v1/reports', { from: 'x' }],
      ['POST', '/v1/reports/schedules', { every: 'PT1M' }],
      ['GET', '/v1/reports/schedules'],
    ] as Array<[string, string, unknown?]>) {
      const res = await rt.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('capability_not_enabled');
    }
    const rows = await rt.ctx.store.db.selectFrom('report_schedules').select('schedule_id').execute();
    expect(rows).toEqual([]);
  });

  it('runs no report worker: a schedule left in the store (the capability switched off later) makes nothing', async () => {
    const startsAt = new Date(Date.now() - 5 * HOUR).toISOString();
    const operator = {
      token_id: 'ns:token:019ad5c0-0001-7c3e-8d2a-5b6c7d8e9f01',
      role: 'admin' as const,
      principal_entity_id: null,
      scopes: [],
    };
    await createSchedule(rt.ctx, operator, { every: 'hour', starts_at: startsAt });
    const stop = startReportWorker(rt.ctx, { intervalMs: 20, onError: (e) => console.error(e) });
    await new Promise((r) => setTimeout(r, 300));
    await stop();
    expect(await rt.ctx.store.db.selectFrom('compliance_reports').select('report_id').execute()).toEqual([]);
  });
});
