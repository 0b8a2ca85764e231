/**
 * Issue 27 end to end, over HTTP on a real socket (SQLite file): a rule pack published and activated for one
 * principal denies a purchase with its own reason and steps another up (approval created, approved, the retry
 * allowed); the same pack in shadow mode for another principal changes nothing but is recorded in the decision's
 * `shadow`; a backtest over 10,000 stored decisions (made in-process through the authorize route, not 10,000 socket
 * calls) runs in the background with progress; the evidence pack of the rule-decided decision verifies and replays
 * offline with the CLI (`aar verify-pack`, a child process with only the JWKS) and the TypeScript SDK.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvidencePack } from '@aar/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { inOneYear } from '../support/fixtures.ts';
import { E2E_PACK } from './e2e-pack.ts';

const ALICE = 'ns:entity:person:alice';
const BOB = 'ns:entity:person:bob';
const CAROL = 'ns:entity:person:carol';
const AGENT = 'ns:entity:agent:shopper-1';
const CARD = 'ns:capability:payment_action:card_purchase';

let rt: TestRuntime;
let base: string;
let dir: string;
const clock = new SteppingClock();
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
const startedAt = clock.now().toISOString();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aar-rules-e2e-'));
  rt = await startTestRuntime({ clock, config: { requireSignedRequests: false, rateLimit: 1_000_000 } });
  await rt.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(rt.app.server.address() as { port: number }).port}`;
  world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
    signerNow: () => Math.floor(clock.now().getTime() / 1000),
    scope: {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      max_daily_amount: { amount: 100_000, currency: 'EUR' },
      valid_until: inOneYear(),
    },
  });
  for (const [id, zone] of [
    ['bob', 'Europe/Paris'],
    ['carol', undefined],
  ] as const) {
    await world.must('POST', '/v1/entities', {
      type: 'person',
      id,
      display_name: id,
      ...(zone ? { time_zone: zone } : {}),
    });
    await world.must('POST', '/v1/card-tokens', {
      id: `tok-${id}`,
      principal_entity_id: `ns:entity:person:${id}`,
      network_token: `ntk_${id}`,
    });
    await world.must('POST', '/v1/grants', {
      principal_entity_id: `ns:entity:person:${id}`,
      actor_entity_id: AGENT,
      capability_id: CARD,
      resource_id: `ns:credential:card-token:tok-${id}`,
      scope: {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 100_000, currency: 'EUR' },
        valid_until: inOneYear(),
      },
    });
  }
}, 120_000);

afterAll(async () => {
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

const purchase = (principal: string, amount: number, extra: Record<string, unknown> = {}) => ({
  actor_entity_id: AGENT,
  principal_entity_id: principal,
  subject: CARD,
  resource: { merchant_id: 'grocer-1', amount, currency: 'EUR' },
  scope: {
    instrument: `ns:card_token:tok-${principal.split(':').at(-1) === 'alice' ? '1' : principal.split(':').at(-1)}`,
  },
  ...extra,
});

let deniedByRule: { policy_decision_id: string; evidence_refs: string[] };

describe('rule packs over HTTP', () => {
  it('refuses a time zone that is not an IANA name, naming it, and writes nothing', async () => {
    const res = await world.call('POST', '/v1/entities', {
      type: 'person',
      id: 'zoe',
      display_name: 'Zoe',
      time_zone: 'Mars/Olympus',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(res.body)).toContain('/time_zone');
    expect((await world.call('GET', '/v1/entities/ns:entity:person:zoe')).status).toBe(404);
    expect((await world.call('GET', `/v1/entities/${BOB}`)).body.time_zone).toBe('Europe/Paris');
  });

  it('denies with its own reason and steps up a new merchant; the approved retry is allowed', async () => {
    expect((await world.call('POST', '/v1/rule-packs', E2E_PACK)).status).toBe(201);
    const published = await world.call('POST', '/v1/rule-packs/e2e_velocity/versions/1.0.0/publish');
    expect(published.status, JSON.stringify(published.body)).toBeLessThan(300);
    const enforce = await world.call('POST', '/v1/rule-activations', {
      pack_id: 'ns:rule_pack:e2e_velocity',
      version: '1.0.0',
      target: { principal_entity_id: ALICE },
      mode: 'enforce',
    });
    expect(enforce.status, JSON.stringify(enforce.body)).toBe(201);

    const first = await world.authorize(purchase(ALICE, 10));
    expect(first.body).toMatchObject({ decision: 'require_approval', reason: 'e2e_velocity.new_merchant' });
    const approvalId: string = first.body.approval.approval_id;
    const approved = await world.call(
      'POST',
      `/v1/approvals/${approvalId}/decision`,
      { approve: true },
      world.principalToken,
    );
    expect(approved.status, JSON.stringify(approved.body)).toBeLessThan(300);
    const retry = await world.authorize(purchase(ALICE, 10, { policy_decision_id: first.body.policy_decision_id }));
    expect(retry.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
    // the merchant is known now: two more pass, the fourth in the hour is denied by the rule
    for (let i = 0; i < 2; i++) {
      expect((await world.authorize(purchase(ALICE, 10))).body.decision).toBe('allow_with_constraints');
    }
    const fourth = await world.authorize(purchase(ALICE, 10));
    expect(fourth.body).toMatchObject({ decision: 'deny', reason: 'e2e_velocity.hourly_count_exceeded' });
    deniedByRule = fourth.body;
    // the map names the pack; the reason flows through the decision, the search and the events
    const decision = await world.call('GET', `/v1/decisions/${fourth.body.policy_decision_id}`);
    expect(decision.status).toBe(200);
    expect(decision.body.reason).toBe('e2e_velocity.hourly_count_exceeded');
    const found = await world.call('GET', '/v1/decisions?reason=e2e_velocity.hourly_count_exceeded');
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.items.map((d: { policy_decision_id: string }) => d.policy_decision_id)).toEqual([
      fourth.body.policy_decision_id,
    ]);
    const packs = (fourth.body.decision_map as { nodes?: unknown }) ?? {};
    expect(JSON.stringify(packs)).toContain('ns:rule_pack:e2e_velocity');
  });

  it('in shadow mode changes nothing and records what the pack would have done', async () => {
    const shadow = await world.call('POST', '/v1/rule-activations', {
      pack_id: 'e2e_velocity',
      version: '1.0.0',
      target: { principal_entity_id: BOB },
      mode: 'shadow',
    });
    expect(shadow.status, JSON.stringify(shadow.body)).toBe(201);
    const res = await world.authorize(purchase(BOB, 10));
    expect(res.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' });
    const pack = (await world.call('GET', `/v1/evidence-packs/${res.body.evidence_refs[0]}`)).body;
    expect(JSON.stringify(pack)).toContain('"shadow":[');
    expect(JSON.stringify(pack)).toContain('e2e_velocity.new_merchant');
    // bob's zone is in the facts the rules read (the pack reads counters only: no local time recorded)
    expect(JSON.stringify(pack)).toContain('"merchant_first_purchase":true');
  });

  it('backtests the pack over 10,000 stored decisions in the background, with progress', async () => {
    const t0 = performance.now();
    // made in-process through the authorize route (inject: no socket), 50 at a time so they commit together
    for (let batch = 0; batch < 200; batch++) {
      clock.advance(600);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          rt.app.inject({
            method: 'POST',
            url: '/v1/runtime/authorize',
            headers: { authorization: `Bearer ${world.runtimeToken}` },
            payload: purchase(CAROL, 1),
          }),
        ),
      );
      for (const a of answers) expect(a.statusCode).toBe(200);
      if (batch % 20 === 0) console.log(`[rules e2e] batch ${batch} at ${(performance.now() - t0).toFixed(0)} ms`);
    }
    const made = performance.now() - t0;
    clock.advance(1);
    const until = new Date(clock.now().getTime() + 1000).toISOString();
    const started = await world.call('POST', '/v1/rule-packs/e2e_velocity/versions/1.0.0/backtests', {
      from: startedAt,
      until,
      principal_entity_id: CAROL,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.backtest_id).toMatch(/^ns:backtest:[0-9a-f-]{36}$/);
    const t1 = performance.now();
    let report;
    const seen: number[] = [];
    for (;;) {
      report = (await world.call('GET', `/v1/backtests/${started.body.backtest_id}`)).body;
      seen.push(report.progress.done);
      if (report.state !== 'running') break;
      expect(report.progress.total).toBe(10_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const ran = performance.now() - t1;
    console.log(`[rules e2e] 10,000 decisions made in ${made.toFixed(0)} ms; backtest ${ran.toFixed(0)} ms`);
    expect(report.state, JSON.stringify(report)).toBe('done');
    expect(report.progress).toEqual({ done: 10_000, total: 10_000 });
    expect(report.result.decisions).toBe(10_000);
    // every decision was allowed; with the pack, the first would have asked and most would have been denied
    const after = Object.fromEntries(
      report.result.by_outcome.map((o: { outcome: string; after: number }) => [o.outcome, o.after]),
    );
    expect(after.require_approval).toBe(1);
    expect(after.deny).toBeGreaterThan(9_000);
    expect(report.result.changed).toBe(after.deny + after.require_approval);
    expect(report.result.samples.length).toBe(20);
    expect(report.result.by_reason.map((r: { reason: string }) => r.reason)).toContain(
      'e2e_velocity.hourly_count_exceeded',
    );
    expect(seen.some((d) => d > 0 && d < 10_000) || seen.length === 1).toBe(true);
    // a backtest never writes a decision; its end is an event with its audit entry
    const events = (await world.call('GET', '/v1/events?event_type=ns.backtest.completed')).body;
    expect(JSON.stringify(events)).toContain(started.body.backtest_id);
    const count = await rt.ctx.store.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('principal_entity_id', '=', CAROL)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(10_000);
  }, 600_000);

  it('the evidence pack of the rule-decided decision verifies and replays offline (CLI and SDK)', async () => {
    const pack = (await world.call('GET', `/v1/evidence-packs/${deniedByRule.evidence_refs[0]}`)).body;
    const jwks = await rt.ctx.keys.jwks();
    const sdk = await verifyEvidencePack(pack, jwks as never);
    expect(sdk.valid, JSON.stringify(sdk)).toBe(true);
    writeFileSync(join(dir, 'pack.json'), JSON.stringify(pack));
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
    const cli = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [AAR_BIN, 'verify-pack', join(dir, 'pack.json'), '--jwks', join(dir, 'jwks.json'), '--json'],
        { timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      ),
    );
    expect(cli.code, cli.stdout).toBe(0);
    const line = JSON.parse(cli.stdout.trim());
    expect(line.valid).toBe(true);
    expect(line.replay_decision).toMatchObject({ matches: true, decision: 'deny' });
  }, 120_000);
});
