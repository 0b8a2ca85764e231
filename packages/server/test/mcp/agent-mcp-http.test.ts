/**
 * `aar mcp --http` as a real process on 127.0.0.1, driven by the MCP SDK's Client over Streamable HTTP: a purchase is
 * decided and recorded; the previous protocol revision (2025-06-18) is negotiated too; DNS rebinding is refused
 * (a foreign Host or Origin gets 403 before any MCP handling); a request naming an unknown session gets 404; the
 * RFC 9728 metadata names the configured authorization server. And the MCP conformance suite (0.1.12, the last
 * release for Node 20) runs against it: every scenario passes except those listed, each with its reason, in
 * conformance-expected-failures.json; an expected failure that starts to pass fails the test too (remove it there).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpWorld, type McpWorld } from './mcp-world.ts';
import { spawnMcpHttp, type McpHttpProcess } from './mcp-http-process.ts';
import { runConformance } from './run-conformance.ts';

const EXPECTED = JSON.parse(readFileSync(new URL('./conformance-expected-failures.json', import.meta.url), 'utf8')) as {
  suite: string;
  expected_failures: Record<string, string>;
};

const INITIALIZE = (version: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A POST on node:http, which (unlike fetch) sends the Host header it is given. */
function post(url: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let w: McpWorld;
let mcp: McpHttpProcess;
beforeAll(async () => {
  w = await startMcpWorld({ AAR_MCP_AUTHORIZATION_SERVERS: 'https://auth.bank.example' });
  mcp = await spawnMcpHttp([...w.argv, '--http', '0', '--authorization-server', 'https://auth.bank.example'], w.env);
}, 60_000);
afterAll(async () => {
  await mcp?.stop();
  await w?.close();
});

describe('aar mcp --http', () => {
  it('serves on 127.0.0.1 only and decides a purchase the service records', async () => {
    expect(new URL(mcp.url).hostname).toBe('127.0.0.1');
    expect(new URL(mcp.url).pathname).toBe('/mcp');
    const client = new Client({ name: 'http-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    try {
      const res = (await client.callTool({
        name: 'authorize_purchase',
        arguments: { merchant_id: 'shop-us', amount: 5, currency: 'EUR' },
      })) as { structuredContent: Record<string, string> };
      expect(res.structuredContent.decision).toBe('deny');
      expect(res.structuredContent.reason).toBe('jurisdiction_not_allowed');
      const recorded = await w.world.call(
        'GET',
        `/v1/decisions/${res.structuredContent.policy_decision_id}`,
        undefined,
        w.world.runtimeToken,
      );
      expect(recorded.body.reason).toBe('jurisdiction_not_allowed');
    } finally {
      await client.close();
    }
  });

  it('negotiates the previous protocol revision as well as the current one', async () => {
    for (const version of ['2025-11-25', '2025-06-18']) {
      const res = await post(mcp.url, INITIALIZE(version), {});
      expect(res.status).toBe(200);
      expect(res.text).toContain(`"protocolVersion":"${version}"`);
      expect(res.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('refuses DNS rebinding: a foreign Host or Origin gets 403', async () => {
    const port = new URL(mcp.url).port;
    const badHost = await post(mcp.url, INITIALIZE('2025-11-25'), { host: `evil.example:${port}` });
    expect(badHost.status).toBe(403);
    expect(JSON.parse(badHost.text).error.message).toMatch(/Host/);
    const badOrigin = await post(mcp.url, INITIALIZE('2025-11-25'), { origin: 'http://evil.example' });
    expect(badOrigin.status).toBe(403);
    expect(JSON.parse(badOrigin.text).error.message).toMatch(/Origin/);
    const localhost = await post(mcp.url, INITIALIZE('2025-11-25'), {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect(localhost.status).toBe(200);
  });

  it('answers protocol errors in JSON-RPC shape: malformed JSON, unknown session', async () => {
    const malformed = await post(mcp.url, '{"jsonrpc":', {});
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text).error.code).toBe(-32700);
    const unknown = await post(mcp.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(404);
  });

  it('publishes RFC 9728 protected-resource metadata naming the authorization server', async () => {
    const res = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', mcp.url));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      resource: mcp.url,
      authorization_servers: ['https://auth.bank.example'],
      bearer_methods_supported: ['header'],
    });
  });

  it('passes the MCP conformance suite, but for the scenarios listed with their reasons', async () => {
    expect(EXPECTED.suite).toBe('@modelcontextprotocol/conformance@0.1.12');
    const run = await runConformance(mcp.url);
    expect(run.verdicts.size, run.output.slice(-3000)).toBeGreaterThanOrEqual(30);
    const unexpected = [...run.failures].filter(([scenario]) => !Object.hasOwn(EXPECTED.expected_failures, scenario));
    expect(unexpected, 'scenarios that fail but are not expected to').toEqual([]);
    const nowPassing = Object.keys(EXPECTED.expected_failures).filter((s) => run.verdicts.get(s) === true);
    expect(nowPassing, 'expected failures that pass now: remove them from the file').toEqual([]);
    const neverRun = Object.keys(EXPECTED.expected_failures).filter((s) => !run.verdicts.has(s));
    expect(neverRun, 'expected failures the suite no longer has').toEqual([]);
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'logging-set-level',
      'dns-rebinding-protection',
    ]) {
      expect(run.verdicts.get(scenario), scenario).toBe(true);
    }
    for (const reason of Object.values(EXPECTED.expected_failures)) expect(reason.length).toBeGreaterThan(40);
  }, 150_000);
});

describe('/mcp inside aar serve', () => {
  const url = () => `${w.server.base}/mcp`;
  const connect = async (token: string) => {
    const client = new Client({ name: 'direct-host', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };
  const signed = async (body: unknown) => {
    const text = JSON.stringify(body);
    const headers = await w.world.signer.sign({
      method: 'POST',
      url: `${w.server.base}/v1/runtime/authorize`,
      body: text,
    });
    return {
      body: text,
      signature_input: headers['signature-input'],
      signature: headers.signature,
      content_digest: headers['content-digest'],
    };
  };

  it('refuses a caller without a token, pointing at the RFC 9728 metadata', async () => {
    const res = await post(url(), INITIALIZE('2025-11-25'), {});
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${w.server.base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const prm = await fetch(`${w.server.base}/.well-known/oauth-protected-resource/mcp`);
    expect(await prm.json()).toMatchObject({
      resource: `${w.server.base}/mcp`,
      authorization_servers: ['https://auth.bank.example'],
    });
    const principal = await post(url(), INITIALIZE('2025-11-25'), {
      authorization: `Bearer ${w.world.principalToken}`,
    });
    expect(principal.status).toBe(403);
    const rebinding = await post(url(), INITIALIZE('2025-11-25'), {
      authorization: `Bearer ${w.world.runtimeToken}`,
      origin: 'http://evil.example',
    });
    expect(rebinding.status).toBe(403);
  });

  it('decides what the agent signed, exactly as POST /v1/runtime/authorize would, replays and tampering included', async () => {
    const client = await connect(w.world.runtimeToken);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'authorize_signed',
        'await_approval',
        'explain_decision',
        'verify_evidence_pack',
      ]);
      const material = await signed(w.world.purchase(7));
      const first = ((await client.callTool({ name: 'authorize_signed', arguments: material })) as Structured)
        .structuredContent;
      expect(first.decision).toBe('allow_with_constraints');
      const recorded = await w.world.call(
        'GET',
        `/v1/decisions/${first.policy_decision_id}`,
        undefined,
        w.world.runtimeToken,
      );
      expect(recorded.body.snapshot.payload.signature_valid).toBe(true);
      const replay = ((await client.callTool({ name: 'authorize_signed', arguments: material })) as Structured)
        .structuredContent;
      expect(replay.reason).toBe('payload_replayed');
      const fresh = await signed(w.world.purchase(7));
      const tampered = { ...fresh, body: fresh.body.replace('"amount":7', '"amount":49') };
      const forged = ((await client.callTool({ name: 'authorize_signed', arguments: tampered })) as Structured)
        .structuredContent;
      expect(forged.decision).toBe('deny');
      expect(forged.reason).toMatch(/^payload_signature/);
      const explained = (
        (await client.callTool({
          name: 'explain_decision',
          arguments: { policy_decision_id: first.policy_decision_id },
        })) as Structured
      ).structuredContent;
      expect(explained.steps).toHaveLength(7);
      const verified = (
        (await client.callTool({
          name: 'verify_evidence_pack',
          arguments: { evidence_pack_id: first.evidence_refs[0] },
        })) as Structured
      ).structuredContent;
      expect(verified.valid).toBe(true);
      const invalid = (await client.callTool({
        name: 'authorize_signed',
        arguments: { ...material, body: 'not json' },
      })) as Structured;
      expect(invalid.isError).toBe(true);
      expect(invalid.content[0].text).toMatch(/400/);
    } finally {
      await client.close();
    }
  });
});
