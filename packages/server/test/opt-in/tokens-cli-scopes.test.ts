/**
 * `aar tokens create --scopes` and `aar tokens list` (CONTRACT section 22), run as the real CLI on a SQLite data dir:
 * scopes of an enabled capability are given and listed; a scope of a capability not enabled, or an unknown one, is
 * refused with a non-zero exit and no token; an unknown AAR_OPT_IN name stops the command.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AAR_BIN } from '../support/spawn-server.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'aar-cli-scopes-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function aar(args: string[], optIn: string) {
  const run = spawnSync(process.execPath, [AAR_BIN, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    env: { ...process.env, AAR_FROM_SOURCE: '1', AAR_OPT_IN: optIn, DATABASE_URL: '' },
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('aar tokens with scopes', () => {
  it('creates a token with scopes and lists them; refuses a disabled or unknown scope', () => {
    const made = aar(
      ['tokens', 'create', '--role', 'runtime', '--scopes', 'memory.write, memory.read', '--json'],
      'memory',
    );
    expect(made.status, made.stderr).toBe(0);
    const token = JSON.parse(made.stdout) as { token_id: string; scopes: string[] };
    expect(token.scopes).toEqual(['memory.read', 'memory.write']);

    const disabled = aar(['tokens', 'create', '--role', 'runtime', '--scopes', 'reports.read'], 'memory');
    expect(disabled.status).not.toBe(0);
    expect(disabled.stderr).toMatch(/reports.*not enabled/);
    const unknown = aar(['tokens', 'create', '--role', 'runtime', '--scopes', 'memory.delete'], 'memory');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('/scopes/0');

    const listed = aar(['tokens', 'list'], 'memory');
    expect(listed.status, listed.stderr).toBe(0);
    const lines = listed.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.split('\t')).toEqual([token.token_id, 'runtime', '-', 'memory.read,memory.write', 'active', '']);

    const typo = aar(['tokens', 'list'], 'memroy');
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain('AAR_OPT_IN');
  }, 300_000);
});
