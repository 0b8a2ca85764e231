/**
 * `aar mcp guard` in front of a small MCP server the test starts (fixtures/pay-server.mjs), driven by the MCP SDK's
 * Client over stdio: only mapped tools are listed and callable; an allowed call reaches the tool and carries its
 * decision; a deny never reaches it; a require_approval returns the approval without calling the tool, and the same
 * call goes through once the person approves; every call is a recorded decision; the guarded server never sees the
 * service token; a mapping naming an unknown capability is refused at start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { spawnMcpHttp } from './mcp-http-process.ts';
import { startMcpWorld, type McpWorld } from './mcp-world.ts';

type Result = {
  isError?: boolean;
  content: Array<{ text: string }>;
  _meta?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
};

const FIXTURE = fileURLToPath(new URL('./fixtures/pay-server.mjs', import.meta.url));
const MAPPING = fileURLToPath(new URL('./fixtures/guard-mapping.json', import.meta.url));

describe('aar mcp guard', () => {
  let w: McpWorld;
  let client: Client;
  let log: string;
  /** `aar mcp guard --mapping <file>` with the world's agent flags (--approval-poll-ms is `aar mcp`'s own) */
  const guardArgv = (mapping: string) => {
    const flags = w.argv.slice(2);
    const poll = flags.indexOf('--approval-poll-ms');
    return [w.argv[0]!, 'mcp', 'guard', '--mapping', mapping, ...flags.filter((_, i) => i !== poll && i !== poll + 1)];
  };

  beforeAll(async () => {
    w = await startMcpWorld();
    log = join(w.dir, 'pay.log');
    client = new Client({ name: 'guarded-host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...guardArgv(MAPPING), '--', process.execPath, FIXTURE],
        env: { ...w.env, PAY_LOG: log },
        stderr: 'inherit',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await w?.close();
  });

  const reached = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
  const pay = (amount: number, merchant = 'grocer-1') =>
    client.callTool({ name: 'pay', arguments: { merchant, amount, currency: 'EUR' } }) as Promise<Result>;
  const recorded = async (id: string) =>
    (await w.world.call('GET', `/v1/decisions/${id}`, undefined, w.world.runtimeToken)).body;

  it('lists only the mapped tools and refuses the others', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['browse', 'pay']);
    await expect(client.callTool({ name: 'wipe', arguments: {} })).rejects.toSatisfy(
      (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
    );
    expect(reached()).toEqual([]);
  });

  it('forwards an allowed call with its decision, and never a denied one', async () => {
    const allowed = await pay(12);
    expect(allowed.isError).toBeFalsy();
    expect(allowed.content[0]!.text).toBe('pay done; token seen: false');
    const decision = allowed._meta!['aar/decision'];
    expect(decision.decision).toBe('allow_with_constraints');
    expect((await recorded(decision.policy_decision_id)).request.actor_entity_id).toBe('ns:entity:agent:shopper-1');
    expect(reached()).toHaveLength(1);

    const denied = await pay(5, 'casino-1');
    expect(denied.isError).toBe(true);
    expect(denied._meta!['aar/decision'].reason).toBe('merchant_category_blocked');
    expect((await recorded(denied._meta!['aar/decision'].policy_decision_id)).decision).toBe('deny');
    const browse = (await client.callTool({ name: 'browse', arguments: { shop: 'grocer-1' } })) as Result;
    expect(browse._meta!['aar/decision'].decision).toBe('allow_with_constraints');
    expect(reached().map((l) => JSON.parse(l).tool)).toEqual(['pay', 'browse']);
    const missing = (await client.callTool({ name: 'pay', arguments: { merchant: 'grocer-1' } })) as Result;
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/amount/);
    expect(reached()).toHaveLength(2);
  });

  it('returns the approval instead of calling the tool, and runs the same call once the person approves', async () => {
    const first = await pay(45);
    expect(first.isError).toBe(true);
    const asked = first._meta!['aar/decision'];
    expect(asked.decision).toBe('require_approval');
    expect(asked.approval.status).toBe('pending');
    const again = await pay(45);
    expect(again._meta!['aar/decision'].reason).toBe('approval_pending');
    expect(reached()).toHaveLength(2);
    const approve = await w.world.call(
      'POST',
      `/v1/approvals/${asked.approval.approval_id}/decision`,
      { approve: true },
      w.world.principalToken,
    );
    expect(approve.status).toBe(200);
    const done = await pay(45);
    expect(done.isError).toBeFalsy();
    expect(done._meta!['aar/decision'].reason).toBe('approved_by_principal');
    expect(reached()).toHaveLength(3);
  });

  it('serves the same guard over Streamable HTTP on 127.0.0.1 with --guard-http', async () => {
    const guard = await spawnMcpHttp([...guardArgv(MAPPING), '--guard-http', '0', '--', process.execPath, FIXTURE], {
      ...w.env,
      PAY_LOG: log,
    });
    const http = new Client({ name: 'guarded-http-host', version: '1.0.0' });
    try {
      expect(new URL(guard.url).hostname).toBe('127.0.0.1');
      await http.connect(new StreamableHTTPClientTransport(new URL(guard.url)));
      const before = reached().length;
      const denied = (await http.callTool({
        name: 'pay',
        arguments: { merchant: 'shop-us', amount: 3, currency: 'EUR' },
      })) as Result;
      expect(denied._meta!['aar/decision'].reason).toBe('jurisdiction_not_allowed');
      const browse = (await http.callTool({ name: 'browse', arguments: { shop: 'grocer-1' } })) as Result;
      expect(browse.content[0]!.text).toBe('browse done; token seen: false');
      expect(
        reached()
          .slice(before)
          .map((l) => JSON.parse(l).tool),
      ).toEqual(['browse']);
    } finally {
      await http.close();
      await guard.stop();
    }
  });

  it('refuses at start a mapping that names an unknown capability', () => {
    const bad = join(w.dir, 'bad-mapping.json');
    writeFileSync(
      bad,
      JSON.stringify({ tools: { pay: { capability: 'ns:capability:payment_action:wire_transfer' } } }),
    );
    const run = spawnSync(process.execPath, [...guardArgv(bad), '--', process.execPath, FIXTURE], {
      env: { ...w.env, PAY_LOG: log },
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/capabilities the service does not know.*wire_transfer/);
    expect(run.stdout).toBe('');
  });
});
