/**
 * Replay holds for 1,000 random decisions made through the HTTP API: random amounts (some in another currency),
 * merchants (allowed, blocked category, other jurisdiction, unknown), actions, risk states of the agent, the
 * principal and the card token, and approvals (approved, rejected, retried with another amount). Every decision's
 * pack is fetched over HTTP and verified offline twice: in this process with core, and by `aar verify-pack` in a
 * child process that has only the JWKS file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEvidencePack, type Jwks } from '@aar/core';
import { buildPurchaseWorld, type CallResult } from '../support/purchase-world.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { inOneYear } from '../support/fixtures.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const DECISIONS = 1000;
const SEED = Number(process.env.AAR_REPLAY_SEED ?? 20261121);

/** mulberry32: a small seeded PRNG, so a failing run can be repeated with AAR_REPLAY_SEED */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let rt: TestRuntime;
let base: string;
let dir: string;
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aar-replay-'));
  rt = await startTestRuntime();
  base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
    scope: {
      max_amount_per_purchase: { amount: 150, currency: 'EUR' },
      max_daily_amount: { amount: 20000, currency: 'EUR' },
      requires_approval_above: { amount: 100, currency: 'EUR' },
      blocked_merchant_categories: ['7995'],
      allowed_jurisdictions: ['DE', 'FR'],
      valid_until: inOneYear(),
    },
  });
  await world.must('POST', '/v1/merchants', {
    id: 'bistro-fr',
    display_name: 'Bistro',
    category: '5812',
    jurisdiction: 'FR',
  });
}, 60_000);
afterAll(async () => {
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('replay of random decisions', () => {
  it(`matches for ${DECISIONS} random decisions, offline`, { timeout: 600_000 }, async () => {
    const random = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const merchants = ['grocer-1', 'grocer-1', 'bistro-fr', 'casino-1', 'shop-us', 'nowhere'];
    const subjects = [
      'ns:capability:payment_action:card_purchase',
      'ns:capability:payment_action:card_purchase',
      'ns:capability:payment_action:card_purchase',
      'ns:capability:purchase:search',
      'ns:capability:purchase:prepare',
    ];
    const riskTargets = ['ns:entity:agent:shopper-1', 'ns:entity:person:alice', 'ns:card_token:tok-1'];
    const pendingApprovals: Array<{ policy_decision_id: string; approval_id: string; amount: number }> = [];
    const answers: CallResult[] = [];

    while (answers.length < DECISIONS) {
      const roll = random();
      if (roll < 0.04) {
        const state = pick(['normal', 'normal', 'elevated', 'blocked'] as const);
        await world.must(
          'POST',
          '/v1/risk-signals',
          { entity_id: pick(riskTargets), risk_state: state },
          world.runtimeToken,
        );
        continue;
      }
      if (roll < 0.12 && pendingApprovals.length > 0) {
        const approval = pendingApprovals.shift()!;
        if (random() < 0.8) {
          await world.call(
            'POST',
            `/v1/approvals/${approval.approval_id}/decision`,
            { approve: random() < 0.75 },
            world.principalToken,
          );
        }
        const amount = random() < 0.8 ? approval.amount : approval.amount + 1;
        answers.push(
          await world.authorize(world.purchase(amount, { policy_decision_id: approval.policy_decision_id })),
        );
        continue;
      }
      const amount = Math.round((1 + random() * 180) * 100) / 100;
      const currency = random() < 0.05 ? 'USD' : 'EUR';
      const subject = pick(subjects);
      const body = world.purchase(amount, {
        subject,
        resource: { merchant_id: pick(merchants), amount, currency },
        ...(random() < 0.2 ? { basket: { items: [{ sku: `sku-${Math.floor(random() * 100)}`, qty: 1 }] } } : {}),
      });
      const answer = await world.authorize(body);
      answers.push(answer);
      if (answer.body.approval && subject.endsWith('card_purchase')) {
        pendingApprovals.push({
          policy_decision_id: answer.body.policy_decision_id,
          approval_id: answer.body.approval.approval_id,
          amount,
        });
      }
    }
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const reasons = new Set(answers.map((a) => a.body.reason as string));
    const decisions = new Set(answers.map((a) => a.body.decision as string));
    expect(decisions).toEqual(new Set(['allow_with_constraints', 'require_approval', 'deny']));
    expect(reasons.size).toBeGreaterThanOrEqual(10);

    // fetch every pack over HTTP, a few at a time
    const files: string[] = [];
    const packs: unknown[] = [];
    for (let i = 0; i < answers.length; i += 16) {
      const chunk = answers.slice(i, i + 16);
      const texts = await Promise.all(
        chunk.map(async (a) => {
          const res = await fetch(`${base}/v1/evidence-packs/${a.body.evidence_refs[0]}`, {
            headers: { authorization: `Bearer ${world.runtimeToken}` },
          });
          expect(res.status).toBe(200);
          return res.text();
        }),
      );
      texts.forEach((text, j) => {
        const file = join(dir, `pack-${i + j}.json`);
        writeFileSync(file, text);
        files.push(file);
        packs.push(JSON.parse(text));
      });
    }

    const jwks = (await rt.ctx.keys.jwks()) as Jwks;
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
    for (const [i, pack] of packs.entries()) {
      const result = await verifyEvidencePack(pack, jwks, { origin: '127.0.0.1:8080/audit' });
      expect(result.valid, `decision ${i}: ${JSON.stringify(result.checks)}`).toBe(true);
      expect(result.replay_decision).toMatchObject({
        decision: answers[i]!.body.decision,
        reason: answers[i]!.body.reason,
        obligations: answers[i]!.body.obligations,
        stop_conditions: answers[i]!.body.stop_conditions,
        matches: true,
      });
    }

    const cli = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [AAR_BIN, 'verify-pack', ...files, '--jwks', join(dir, 'jwks.json'), '--origin', '127.0.0.1:8080/audit'],
        { env: { PATH: process.env.PATH ?? '', HOME: dir }, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout }),
      );
    });
    expect(cli.stdout.trim().split('\n').at(-1)).toBe(`${DECISIONS} of ${DECISIONS} packs valid`);
    expect(cli.code).toBe(0);
    console.log(`replay: ${DECISIONS} decisions, reasons: ${[...reasons].sort().join(', ')}`);
  });
});
