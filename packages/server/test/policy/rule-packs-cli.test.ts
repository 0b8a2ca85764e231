/**
 * `aar rule-packs validate|test|publish FILE` as an author runs it: the real binary (from source), its exit status
 * and output; `publish` against a running service over HTTP.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AAR_BIN } from '../support/spawn-server.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { testPack } from './policy-fixtures.ts';

function aar(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AAR_BIN, ...args], { env: { ...process.env, AAR_FROM_SOURCE: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

describe('aar rule-packs', () => {
  let dir: string;
  let rt: TestRuntime;
  let base: string;
  const file = (name: string, doc: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aar-cli-packs-'));
    rt = await startTestRuntime();
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('validates a good pack and names each problem of a bad one', async () => {
    const good = await aar(['rule-packs', 'validate', file('good.json', testPack('cli-good'))]);
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/valid/);
    const bad = testPack('cli-bad');
    (bad.rules as Array<Record<string, unknown>>)[0]!.when = { '/': [1, 2] };
    (bad.rules as Array<Record<string, unknown>>)[0]!.obligations = [{ type: 'nope' }];
    const out = await aar(['rule-packs', 'validate', file('bad.json', bad)]);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(/\/rules\/0\/when/);
    expect(out.stdout).toMatch(/\/rules\/0\/obligations\/0\/type/);
  }, 60_000);

  it("runs a pack's tests offline", async () => {
    const passing = await aar(['rule-packs', 'test', file('pass.json', testPack('cli-pass'))]);
    expect(passing.status).toBe(0);
    expect(passing.stdout).toMatch(/2 passed, 0 failed/);
    const failing = testPack('cli-fail');
    (failing.tests as Array<Record<string, unknown>>)[1]!.expect = { effect: 'deny', reason: 'cli-fail.too_many' };
    const out = await aar(['rule-packs', 'test', file('fail.json', failing)]);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(/FAIL the first passes/);
  }, 60_000);

  it('publishes over HTTP, and reports a refusal with its pointers', async () => {
    const ok = await aar([
      'rule-packs',
      'publish',
      file('pub.json', testPack('cli-pub')),
      '--base-url',
      base,
      '--token',
      ADMIN_TOKEN,
    ]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ id: 'ns:rule_pack:cli-pub', state: 'published' });
    const failing = testPack('cli-pub-fail');
    (failing.tests as Array<Record<string, unknown>>)[0]!.expect = { effect: 'none' };
    const refused = await aar([
      'rule-packs',
      'publish',
      file('pubfail.json', failing),
      '--base-url',
      base,
      '--token',
      ADMIN_TOKEN,
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/\/tests\/0/);
    const unreachable = await aar([
      'rule-packs',
      'publish',
      file('pub2.json', testPack('cli-pub2')),
      '--base-url',
      'http://127.0.0.1:9',
      '--token',
      'x',
    ]);
    expect(unreachable.status).toBe(2);
  }, 60_000);
});
