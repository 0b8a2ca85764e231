/**
 * One audit origin (CONTRACT section 8, issue 8 point 3): `aar serve` and `aar audit-serve` as real processes on one
 * data dir, on different ports (so their issuer URLs differ). Both sign checkpoints of the store's origin, fixed at
 * its first open; `/verify` is valid on both; an evidence pack assembled by `aar serve` after a checkpoint that
 * `aar audit-serve` signed verifies offline with core's verifier and the origin, and `aar verify-pack` agrees.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEvidencePack, type Jwks } from '@aar/core';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { AAR_BIN, spawnServer, type ServerProcess } from '../support/spawn-server.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

describe('aar serve and aar audit-serve on one data dir', () => {
  let dataDir: string;
  let serve: ServerProcess;
  let audit: ServerProcess;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'aar-origin-'));
    const env = { AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN, AAR_CHECKPOINT_INTERVAL: '3600' };
    serve = await spawnServer(env);
    audit = await spawnServer(env, [], 'audit-serve');
  });
  afterAll(async () => {
    await audit?.stop();
    await serve?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const admin = (base: string, method: string, path: string) =>
    fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  it('signs one origin whatever the port, and a pack over audit-serve checkpoint verifies offline', async () => {
    expect(serve.base).not.toBe(audit.base);
    const world = await buildPurchaseWorld(serve.base, ADMIN_TOKEN);
    const decision = (await world.authorize(world.purchase(20))).body;
    expect(decision.decision).toBe('allow_with_constraints');

    // audit-serve signs the checkpoint that covers the decision; its origin is the store's: serve's first open
    const res = await admin(audit.base, 'POST', '/checkpoint');
    expect(res.status).toBe(200);
    const checkpoint = (await res.json()) as { origin: string; size: number };
    const origin = `${new URL(serve.base).host}/audit`;
    expect(checkpoint.origin).toBe(origin);

    const viaServe = (await (await admin(serve.base, 'GET', '/v1/audit/verify')).json()) as Record<string, unknown>;
    const viaAudit = (await (await admin(audit.base, 'GET', '/verify')).json()) as Record<string, unknown>;
    expect(viaServe).toMatchObject({ valid: true, checkpoint: { origin, size: checkpoint.size } });
    expect(viaAudit).toMatchObject({ valid: true, checkpoint: { origin, size: checkpoint.size } });

    // the pack is assembled by serve, over audit-serve's checkpoint
    const pack = (
      await world.call('GET', `/v1/evidence-packs/${decision.evidence_refs[0]}`, undefined, world.runtimeToken)
    ).body as Record<string, unknown>;
    expect(pack.checkpoint).toMatchObject({ origin, size: checkpoint.size });
    const jwks = (await (await fetch(`${audit.base}/.well-known/jwks.json`)).json()) as Jwks;
    expect(await verifyEvidencePack(pack, jwks, { origin })).toMatchObject({ valid: true });

    const packFile = join(dataDir, 'pack.json');
    const jwksFile = join(dataDir, 'jwks.json');
    writeFileSync(packFile, JSON.stringify(pack));
    writeFileSync(jwksFile, JSON.stringify(jwks));
    const cli = spawnSync(
      process.execPath,
      [AAR_BIN, 'verify-pack', packFile, '--jwks', jwksFile, '--origin', origin],
      {
        encoding: 'utf8',
        env: { ...process.env },
      },
    );
    expect(cli.status, cli.stdout + cli.stderr).toBe(0);

    // the server's own verifier agrees (it checks the stored origin, not its own port)
    const onServer = await world.call('POST', '/v1/evidence-packs/verify', pack, world.runtimeToken);
    expect(onServer.body).toMatchObject({ valid: true });
  });
});
