/**
 * `aar mcp` over stdio, driven by the MCP SDK's own Client as an agent host would: the process is spawned, signs as
 * the agent, and every answer is checked against the service itself (GET /v1/decisions/{id}). Allowed, approval
 * (approved by the principal, then retried by await_approval) and denied purchases come back as such; an unknown
 * tool is a JSON-RPC error; arguments failing the schema and a card number in the arguments are tool errors that
 * record nothing; a key file readable by others is refused at start.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startMcpWorld, type McpWorld } from './mcp-world.ts';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('aar mcp over stdio', () => {
  let w: McpWorld;
  let client: Client;
  const logged: unknown[] = [];
  beforeAll(async () => {
    w = await startMcpWorld();
    client = new Client({ name: 'test-agent-host', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params));
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: w.argv, env: w.env, stderr: 'inherit' }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await w?.close();
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<{
      structuredContent?: Structured;
      isError?: boolean;
      content: Array<{ type: string; text: string }>;
    }>;
  const decisionCount = async () => {
    const res = await w.world.call('GET', '/v1/decisions?limit=100', undefined, w.world.principalToken);
    return (res.body.items as unknown[]).length;
  };

  it('lists its tools, each with input and output JSON Schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'authorize_purchase',
      'await_approval',
      'my_authority',
      'explain_decision',
      'verify_evidence_pack',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(40);
    }
    const authorize = tools[0]!;
    expect((authorize.inputSchema.properties as Structured).action.enum).toContain('refund_request');
  });

  it('authorizes a purchase signed as the agent, recorded by the service, and verifies its evidence', async () => {
    await client.setLoggingLevel('info');
    const res = await call('authorize_purchase', { merchant_id: 'grocer-1', amount: 20, currency: 'EUR' });
    expect(res.isError).toBeFalsy();
    const d = res.structuredContent!;
    expect(d.decision).toBe('allow_with_constraints');
    expect(d.reason).toBe('scope_within_attenuated_authority');
    expect(res.content[0]!.text).toContain('allow_with_constraints');
    const recorded = await w.world.call(
      'GET',
      `/v1/decisions/${d.policy_decision_id}`,
      undefined,
      w.world.runtimeToken,
    );
    expect(recorded.status).toBe(200);
    expect(recorded.body.decision).toBe('allow_with_constraints');
    expect(recorded.body.request.actor_entity_id).toBe('ns:entity:agent:shopper-1');
    expect(recorded.body.snapshot.payload.signature_valid).toBe(true);
    await expect
      .poll(() => logged)
      .toContainEqual({
        level: 'info',
        logger: 'aar',
        data: { policy_decision_id: d.policy_decision_id, decision: 'allow_with_constraints', reason: d.reason },
      });

    const authority = (await call('my_authority')).structuredContent!;
    expect(authority.has_authority).toBe(true);
    expect(authority.effective_scope.max_amount_per_purchase).toEqual({ amount: 50, currency: 'EUR' });
    expect(authority.remaining_today).toEqual({ amount: 80, currency: 'EUR' });
    expect(authority.chain).toEqual([{ grant_id: w.world.grant.grant_id, state: 'active' }]);
    expect(Date.parse(authority.expires_at)).toBe(Date.parse(w.world.grant.scope.valid_until));

    const verified = (await call('verify_evidence_pack', { evidence_pack_id: d.evidence_refs[0] })).structuredContent!;
    expect(verified.valid).toBe(true);
    expect(verified.replay.matches).toBe(true);
    const tampered = await w.world.call(
      'GET',
      `/v1/evidence-packs/${d.evidence_refs[0]}`,
      undefined,
      w.world.runtimeToken,
    );
    tampered.body.request.amount.minor = 1;
    const bad = (await call('verify_evidence_pack', { pack: tampered.body })).structuredContent!;
    expect(bad.valid).toBe(false);
  });

  it('sends a purchase above the threshold for approval, and completes it once the principal approves', async () => {
    const res = (await call('authorize_purchase', { merchant_id: 'grocer-1', amount: 45, currency: 'EUR' }))
      .structuredContent!;
    expect(res.decision).toBe('require_approval');
    expect(res.reason).toBe('amount_above_approval_threshold');
    const pending = (await call('await_approval', { policy_decision_id: res.policy_decision_id, wait_seconds: 0 }))
      .structuredContent!;
    expect(pending.status).toBe('pending');
    const approve = await w.world.call(
      'POST',
      `/v1/approvals/${res.approval.approval_id}/decision`,
      { approve: true },
      w.world.principalToken,
    );
    expect(approve.status).toBe(200);
    const done = (await call('await_approval', { policy_decision_id: res.policy_decision_id, wait_seconds: 10 }))
      .structuredContent!;
    expect(done.status).toBe('approved');
    expect(done.final_decision.decision).toBe('allow_with_constraints');
    expect(done.final_decision.reason).toBe('approved_by_principal');
    const recorded = await w.world.call(
      'GET',
      `/v1/decisions/${done.final_decision.policy_decision_id}`,
      undefined,
      w.world.runtimeToken,
    );
    expect(recorded.body.reason).toBe('approved_by_principal');
  });

  it('answers a deny as a decision and explains it in plain words', async () => {
    const res = (await call('authorize_purchase', { merchant_id: 'casino-1', amount: 10, currency: 'EUR' }))
      .structuredContent!;
    expect(res.decision).toBe('deny');
    expect(res.reason).toBe('merchant_category_blocked');
    const explained = (await call('explain_decision', { policy_decision_id: res.policy_decision_id }))
      .structuredContent!;
    expect(explained.summary).toMatch(/category is blocked/);
    expect(explained.steps.map((s: Structured) => s.node)).toEqual([
      'principal',
      'delegation',
      'actor',
      'capability',
      'scope',
      'state',
      'policy',
    ]);
    expect(explained.checks.find((c: Structured) => c.check === 'merchant').outcome).toBe('fail');
    expect(explained.next_step).toMatch(/Do not proceed/);
  });

  it('refuses bad calls in MCP’s own error shapes, recording nothing', async () => {
    const before = await decisionCount();
    await expect(call('pay_everything')).rejects.toSatisfy(
      (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /unknown tool/.test(e.message),
    );
    const negative = await call('authorize_purchase', { merchant_id: 'grocer-1', amount: -5, currency: 'EUR' });
    expect(negative.isError).toBe(true);
    expect(negative.content[0]!.text).toMatch(/\/amount: must be > 0/);
    const missing = await call('authorize_purchase', { merchant_id: 'grocer-1' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/amount/);
    const extra = await call('authorize_purchase', { merchant_id: 'grocer-1', amount: 5, currency: 'EUR', card: 'x' });
    expect(extra.content[0]!.text).toMatch(/card/);
    const pan = await call('authorize_purchase', {
      merchant_id: 'grocer-1',
      amount: 5,
      currency: 'EUR',
      context: { note: 'use 4111 1111 1111 1111' },
    });
    expect(pan.isError).toBe(true);
    expect(pan.content[0]!.text).toMatch(/card number/);
    expect(pan.content[0]!.text).not.toContain('4111');
    const foreign = await call('explain_decision', {
      policy_decision_id: 'ns:decision:01a221bf-0000-7000-8000-000000000000',
    });
    expect(foreign.isError).toBe(true);
    expect(await decisionCount()).toBe(before);
  });

  it('refuses at start a key file that others may read', () => {
    const loose = join(w.dir, 'loose-key.jwk');
    copyFileSync(w.keyFile, loose);
    chmodSync(loose, 0o644);
    const argv = w.argv.map((a) => (a === w.keyFile ? loose : a));
    const run = spawnSync(process.execPath, argv, { env: w.env, encoding: 'utf8', input: '', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/mode 0644.*chmod 600/);
    expect(run.stdout).toBe('');
  });
});
