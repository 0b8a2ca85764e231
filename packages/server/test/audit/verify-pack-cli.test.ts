/**
 * `aar verify-pack` in a child process that has no database and no keys, only the JWKS: a pack exported as JSON
 * verifies (exit 0), a changed byte fails (exit 1), the JWKS URL is fetched once and then read from its cache file
 * (again only when a pack names a key the cache lacks), and a file JWKS works offline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
let dir: string;
let jwksServer: Server;
let jwksUrl: string;
let jwksFetches = 0;
let packFiles: string[];

/** Runs the CLI with an environment that points at no store: it must not need one. */
function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [AAR_BIN, 'verify-pack', ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          AAR_DATA_DIR: join(dir, 'no-such-data-dir'),
          DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aar-verify-pack-'));
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  const answers = [
    await world.authorize(world.purchase(20)),
    await world.authorize(world.purchase(45)),
    await world.authorize(world.purchase(60)),
  ];
  packFiles = [];
  for (const [i, answer] of answers.entries()) {
    const res = await fetch(`${base}/v1/evidence-packs/${answer.body.evidence_refs[0]}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const file = join(dir, `pack-${i}.json`);
    writeFileSync(file, await res.text());
    packFiles.push(file);
  }
  const jwksText = JSON.stringify(await rt.ctx.keys.jwks());
  writeFileSync(join(dir, 'jwks.json'), jwksText);
  jwksServer = createServer((_req, res) => {
    jwksFetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwksText);
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}/.well-known/jwks.json`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => jwksServer?.close(resolve));
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('aar verify-pack', () => {
  it('verifies exported packs with only the JWKS URL, fetched once and cached', { timeout: 120_000 }, async () => {
    const cache = join(dir, 'cache', 'jwks.json');
    const first = await runCli([
      ...packFiles,
      '--jwks',
      jwksUrl,
      '--jwks-cache',
      cache,
      '--origin',
      '127.0.0.1:8080/audit',
      '--json',
    ]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const results = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results).toHaveLength(3);
    expect(results.map((r) => [r.valid, r.replay_decision.matches])).toEqual([
      [true, true],
      [true, true],
      [true, true],
    ]);
    expect(results.map((r) => r.replay_decision.decision)).toEqual([
      'allow_with_constraints',
      'require_approval',
      'deny',
    ]);
    expect(jwksFetches).toBe(1);
    expect(existsSync(cache)).toBe(true);

    const second = await runCli([packFiles[0]!, '--jwks', jwksUrl, '--jwks-cache', cache]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^valid /);
    expect(jwksFetches).toBe(1);
  });

  it('fails on a changed byte, and on a checkpoint of another origin', { timeout: 120_000 }, async () => {
    const text = readFileSync(packFiles[0]!, 'utf8');
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, text.replace('"minor":2000', '"minor":2001'));
    expect(readFileSync(tampered, 'utf8')).not.toBe(text);
    const res = await runCli([tampered, '--jwks', join(dir, 'jwks.json')]);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^INVALID .*pack_signature: signature_mismatch.*record_digest: digest_mismatch/);
    const otherLog = await runCli([packFiles[0]!, '--jwks', join(dir, 'jwks.json'), '--origin', 'other.example/audit']);
    expect(otherLog.code).toBe(1);
    expect(otherLog.stdout).toContain('checkpoint: origin_mismatch');
  });

  it('refetches a cached JWKS that lacks a key id, and names a key missing from it', { timeout: 120_000 }, async () => {
    const cache = join(dir, 'stale-cache.json');
    writeFileSync(cache, JSON.stringify({ keys: [] }));
    const before = jwksFetches;
    expect((await runCli([packFiles[1]!, '--jwks', jwksUrl, '--jwks-cache', cache])).code).toBe(0);
    expect(jwksFetches).toBe(before + 1);
    const empty = join(dir, 'empty-jwks.json');
    writeFileSync(empty, JSON.stringify({ keys: [] }));
    const res = await runCli([packFiles[1]!, '--jwks', empty, '--json']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout).checks[0]).toEqual({ check: 'pack_signature', valid: false, failure: 'unknown_key' });
    expect((await runCli([join(dir, 'missing.json'), '--jwks', empty])).code).toBe(2);
  });
});
