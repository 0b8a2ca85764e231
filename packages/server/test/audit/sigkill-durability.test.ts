/**
 * Killing `aar serve` (SIGKILL, no shutdown) during a burst of authorize calls loses no decision that was answered:
 * after a restart on the same data dir every answered `policy_decision_id` is readable, its evidence pack verifies,
 * and `GET /v1/audit/verify` is valid. Group commit answers a request only after its batch committed with its audit
 * entry (store/write-queue.ts); this is the test of that promise on the embedded default (SQLite, WAL, FULL sync).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyEvidencePack } from '@aar/core';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { spawnServer, type ServerProcess } from '../support/spawn-server.ts';

const TOKEN = 'sigkill-admin-token';

describe('SIGKILL during a burst of authorize calls', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-sigkill-'));
  const env = { AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: TOKEN, AAR_RATE_LIMIT: '1000000' };
  const servers: ServerProcess[] = [];
  const running = (s: ServerProcess) => s.child.exitCode === null && s.child.signalCode === null;
  afterAll(async () => {
    for (const s of servers.filter(running)) await s.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no answered decision, and the chain verifies after restart', { timeout: 180_000 }, async () => {
    const first = await spawnServer(env);
    servers.push(first);
    const world = await buildPurchaseWorld(first.base, TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 1_000_000, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
        valid_until: inOneYear(),
      },
    });

    const answered: string[] = [];
    let failed = 0;
    let killed = false;
    const total = 600;
    const killAfter = 150;
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const i = next++;
        try {
          const res = await world.authorize(world.purchase(1 + (i % 45)));
          if (res.status === 200) answered.push(res.body.policy_decision_id);
          else failed++;
        } catch {
          failed++; // the connection died with the server
        }
        if (!killed && answered.length >= killAfter) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    expect(killed).toBe(true);
    expect(answered.length).toBeGreaterThanOrEqual(killAfter);
    expect(failed).toBeGreaterThan(0);
    await new Promise((resolve) => (running(first) ? first.child.once('exit', resolve) : resolve(null)));
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await spawnServer(env);
    servers.push(second);
    const call = async (path: string) => {
      const res = await fetch(`${second.base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      return { status: res.status, body: await res.json() };
    };
    for (const id of answered) {
      const res = await call(`/v1/decisions/${id}`);
      expect(res.status, id).toBe(200);
    }
    const verify = await call('/v1/audit/verify');
    expect(verify.body).toMatchObject({ valid: true });
    expect(verify.body.size).toBeGreaterThan(answered.length);
    const jwks = (await call('/.well-known/jwks.json')).body;
    for (const id of answered.slice(-5)) {
      const decision = (await call(`/v1/decisions/${id}`)).body;
      const pack = (await call(`/v1/evidence-packs/${decision.evidence_refs[0]}`)).body;
      expect((await verifyEvidencePack(pack, jwks)).valid).toBe(true);
    }
    console.log(
      `sigkill: ${answered.length} answered before the kill, ${failed} cut off; log size ${verify.body.size}`,
    );
  });
});
