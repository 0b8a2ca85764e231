/**
 * `aar verify-chain` in a child process with no database: a three-link chain exported by GET /v1/grants/{id}/chain is
 * verified with nothing but the JWKS (a file, or the issuer's URL); a byte flipped in any link fails with exit code 1
 * and names that link.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@aar/core';
import { buildDelegationWorld } from '../support/delegation-world.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('aar verify-chain', () => {
  let rt: TestRuntime;
  let base: string;
  let chain: { links: unknown[] } & Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), 'aar-verify-chain-'));
  const noDataDir = join(dir, 'must-not-exist');
  const jwksFile = join(dir, 'jwks.json');

  const cli = async (args: string[]): Promise<CliResult> => {
    try {
      // no DATABASE_URL, a data dir that does not exist: the command must need neither
      const { DATABASE_URL: _omit, ...env } = process.env;
      const { stdout, stderr } = await run(process.execPath, [AAR_BIN, 'verify-chain', ...args], {
        env: { ...env, AAR_DATA_DIR: noDataDir },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const chainFile = (doc: unknown, name: string) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    return file;
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const w = await buildDelegationWorld(base, ADMIN_TOKEN);
    const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {
      max_daily_amount: { amount: 100, currency: 'EUR' },
    });
    const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {
      max_amount_per_purchase: { amount: 25, currency: 'EUR' },
    });
    chain = (await w.call('GET', `/v1/grants/${leaf.body.grant_id}/chain`)).body;
    writeFileSync(jwksFile, JSON.stringify((await w.call('GET', '/.well-known/jwks.json')).body));
  });
  afterAll(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the exported three-link chain offline, with a JWKS file or URL', async () => {
    const file = chainFile(chain, 'chain.json');
    const fromFile = await cli([file, '--jwks', jwksFile]);
    expect(fromFile.code, fromFile.stdout + fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toContain('chain of 3 link(s)');
    expect(fromFile.stdout.trim().endsWith('valid')).toBe(true);
    const fromUrl = await cli([file, '--jwks', `${base}/.well-known/jwks.json`, '--json']);
    expect(fromUrl.code).toBe(0);
    expect(JSON.parse(fromUrl.stdout)).toMatchObject({ valid: true, document_signed: true, problems: [] });
    expect(existsSync(noDataDir)).toBe(false);
  });

  it('fails on a byte flipped in any link, naming the link', async () => {
    for (const [index, link] of chain.links.entries()) {
      const text = canonicalJson(link);
      // a flip inside the scope, inside an id and inside the signature of each link
      const targets = [text.indexOf('"scope":') + 12, text.indexOf('"grant_id":') + 40, text.length - 10];
      for (const at of targets) {
        const flipped = text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 0x01) + text.slice(at + 1);
        const mutated = JSON.parse(flipped) as { grant_id: unknown };
        const links = chain.links.map((l, i) => (i === index ? mutated : l));
        const result = await cli([
          chainFile({ ...chain, links }, `flip-${index}-${at}.json`),
          '--jwks',
          jwksFile,
          '--json',
        ]);
        expect(result.code, `link ${index} byte ${at}`).toBe(1);
        const report = JSON.parse(result.stdout) as { problems: Array<{ index: number | null; grant_id: unknown }> };
        // named by position and by the grant id the (mutated) link carries
        expect(report.problems.some((p) => p.index === index && p.grant_id === mutated.grant_id)).toBe(true);
      }
    }
    const human = await cli([
      chainFile({ ...chain, links: [chain.links[1], chain.links[0], chain.links[2]] }, 'r.json'),
      '--jwks',
      jwksFile,
    ]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/INVALID: \d+ problem\(s\)/);
    expect(human.stdout).toMatch(/link #0 ns:authority:grant:\S+: not_a_root at \/parent_grant_id/);
  }, 120_000);

  it("prints a revoked link's own revoked_at, not the chain's as_of", async () => {
    const middleId = (chain.links[1] as { grant_id: string }).grant_id;
    const leafId = (chain.links[2] as { grant_id: string }).grant_id;
    const w = {
      call: (method: string, path: string) =>
        fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    };
    const revoked = (await (await w.call('POST', `/v1/grants/${middleId}/revoke`)).json()) as { revoked_at: string };
    await new Promise((resolve) => setTimeout(resolve, 20)); // as_of is read later than the revocation
    const after = (await (await w.call('GET', `/v1/grants/${leafId}/chain`)).json()) as {
      as_of: string;
      states: Array<{ revoked_at: string | null }>;
    };
    expect(after.states[1]?.revoked_at).toBe(revoked.revoked_at);
    expect(after.as_of).not.toBe(revoked.revoked_at);
    const file = chainFile(after, 'revoked.json');
    const human = await cli([file, '--jwks', jwksFile]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      `#1 ${middleId} -> ns:entity:agent:planner, delegator signed, revoked at ${revoked.revoked_at}`,
    );
    expect(human.stdout).toContain(`revoked: is \`revoked\` since \`${revoked.revoked_at}\``);
    expect(human.stdout).not.toContain(after.as_of);
    const json = JSON.parse((await cli([file, '--jwks', jwksFile, '--json'])).stdout) as {
      links: Array<{ revoked_at: string | null }>;
    };
    expect(json.links.map((l) => l.revoked_at)).toEqual([null, revoked.revoked_at, revoked.revoked_at]);
  });

  it('answers a usage error with exit code 2', async () => {
    expect((await cli([join(dir, 'missing.json'), '--jwks', jwksFile])).code).toBe(2);
    const notJwks = chainFile({ keys: 'none' }, 'bad-jwks.json');
    expect((await cli([chainFile(chain, 'c2.json'), '--jwks', notJwks])).code).toBe(2);
  });
});
