/**
 * A proof bundle end to end (CONTRACT section 12): `aar serve` as a real process assembles the bundle of a delegated
 * purchase over HTTP; it is written to a file and `aar verify-bundle` verifies it in another process with no database
 * (a data dir that does not exist, no DATABASE_URL), with the JWKS from the issuer URL or a file. Then one byte of
 * each part is changed: the bundle is invalid, and the check that covers that part fails (besides the bundle
 * signature and the references digest, which cover every part).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_PARTS } from '@aar/core';
import { buildDelegationWorld } from '../support/delegation-world.ts';
import { AAR_BIN, spawnServer, type ServerProcess } from '../support/spawn-server.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const run = promisify(execFile);
const TOKEN = 'bundle-e2e-admin-token-0123456789';

/** For each part: a string inside it whose last character is changed, and the check that covers it. */
const FLIPS: Record<string, { path: Array<string | number>; covering: string }> = {
  purpose_manifest: { path: ['purpose'], covering: 'references_digest' },
  scope_snapshot: { path: ['links', 0, 'grant_id'], covering: 'delegation_attenuation' },
  state_snapshot: { path: ['snapshot', 'merchant', 'category'], covering: 'replay_equal' },
  runtime_decision: { path: ['request', 'merchant_id'], covering: 'replay_equal' },
  decision_map: { path: ['issued_at'], covering: 'decision_map_signature' },
  evidence_pack: { path: ['issuer'], covering: 'evidence_pack_signature' },
  delegation_chain: { path: ['as_of'], covering: 'delegation_chain_signatures' },
  replay_proof: { path: ['engine_version'], covering: 'replay_equal' },
  checkpoint: { path: ['timestamp'], covering: 'checkpoint_signature' },
  inclusion_proof: { path: ['hashes', 0], covering: 'audit_inclusion' },
  rule_pack_refs: { path: [0, 'ref'], covering: 'references_digest' },
  conformance_profiles: { path: [0], covering: 'references_digest' },
};

/** Changes one character (one byte: all ASCII here) of the string at `path` inside `part`. */
function flipLastCharacter(part: Json, path: Array<string | number>): void {
  const holder = path.slice(0, -1).reduce((at: Json, key) => at[key], part);
  const key = path[path.length - 1]!;
  const text = holder[key] as string;
  const last = text[text.length - 1]!;
  holder[key] = text.slice(0, -1) + (last === '1' ? '2' : last === 'A' ? 'B' : '1');
}

describe('aar verify-bundle against a bundle assembled by aar serve', () => {
  let server: ServerProcess;
  let bundle: Json;
  const dir = mkdtempSync(join(tmpdir(), 'aar-bundle-e2e-'));
  const noDataDir = join(dir, 'must-not-exist');
  const jwksFile = join(dir, 'jwks.json');

  const cli = async (args: string[]) => {
    try {
      const { DATABASE_URL: _omit, ...env } = process.env;
      const { stdout, stderr } = await run(process.execPath, [AAR_BIN, 'verify-bundle', ...args], {
        env: { ...env, AAR_DATA_DIR: noDataDir },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  beforeAll(async () => {
    server = await spawnServer({ AAR_DATA_DIR: join(dir, 'server'), AAR_BOOTSTRAP_TOKEN: TOKEN, DATABASE_URL: '' });
    const w = await buildDelegationWorld(server.base, TOKEN);
    await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:shopper-1', {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
    });
    const decision = (await w.authorize('shopper-1', w.purchase('shopper-1', 30))).body;
    expect(decision.decision).toBe('allow_with_constraints');
    const res = await fetch(`${server.base}/v1/bundles/assemble`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_decision_id: decision.policy_decision_id, purpose: { purpose: 'audit' } }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('aar-version')).toMatch(/^\d+\.\d+\.\d+/);
    bundle = await res.json();
    writeFileSync(jwksFile, JSON.stringify(await (await fetch(`${server.base}/.well-known/jwks.json`)).json()));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the bundle offline, in a process with no database, with the JWKS from the issuer or a file', async () => {
    const file = join(dir, 'bundle.json');
    writeFileSync(file, JSON.stringify(bundle, null, 2));
    const fromUrl = await cli([file, '--jwks', `${server.base}/.well-known/jwks.json`]);
    expect(fromUrl.code, fromUrl.stdout + fromUrl.stderr).toBe(0);
    expect(fromUrl.stdout).toContain('10 of 10 checks');
    const fromFile = await cli([file, '--jwks', jwksFile, '--json']);
    expect(fromFile.code).toBe(0);
    const result = JSON.parse(fromFile.stdout);
    expect(result).toMatchObject({ file, bundle_id: bundle.bundle_id, valid: true });
    expect(result.checks.map((c: Json) => c.ok)).toEqual(Array(10).fill(true));
    expect(existsSync(noDataDir)).toBe(false);
  });

  it('fails a bundle with one byte of any part changed, on the check that covers that part', async () => {
    expect(Object.keys(FLIPS).sort()).toEqual(BUNDLE_PARTS.map((p) => p.name).sort());
    const files = Object.entries(FLIPS).map(([name, flip]) => {
      const damaged = structuredClone(bundle);
      flipLastCharacter(damaged[name], flip.path);
      const file = join(dir, `flipped-${name}.json`);
      writeFileSync(file, JSON.stringify(damaged));
      return file;
    });
    const out = await cli([...files, '--jwks', jwksFile, '--json']);
    expect(out.code, out.stderr).toBe(1);
    const results = out.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results).toHaveLength(files.length);
    for (const [i, [name, flip]] of Object.entries(FLIPS).entries()) {
      const failing = results[i].checks.filter((c: Json) => !c.ok).map((c: Json) => c.name);
      expect(results[i].valid, name).toBe(false);
      expect(failing, name).toEqual(expect.arrayContaining(['bundle_signature', 'references_digest', flip.covering]));
    }
  });
});
