/**
 * `aar mcp`: the agent's own MCP server (docs/mcp.md). It acts for one agent, for one principal, with one card token,
 * all fixed by flags; it signs every authorize as the agent with the key file (mode 0600, PKCS#8 PEM or JWK) and calls
 * a running service with the API token in `AAR_MCP_TOKEN` (never a flag: flags show in `ps`). Transport: stdio by
 * default (for an agent host that launches it; stdout carries MCP messages only, diagnostics go to stderr), or
 * Streamable HTTP at `/mcp` on 127.0.0.1 with `--http <port>`. `aar mcp guard` is the guard mode (guard-command.ts).
 */
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError } from '../config.ts';
import { agentId, instrumentId, principalId } from '../mcp/agent-identity.ts';
import { AgentKeyError, loadAgentKey } from '../mcp/agent-key.ts';
import { AgentSession } from '../mcp/agent-session.ts';
import { buildMcpServer } from '../mcp/agent-server.ts';
import { AGENT_SERVER_INFO, agentCatalogue } from '../mcp/agent-tools.ts';
import { startLocalHttp } from '../mcp/local-http.ts';
import { registerGuardCommand } from './mcp-guard-command.ts';

export const MCP_TOKEN_ENV = 'AAR_MCP_TOKEN';

interface McpFlags extends AgentFlags {
  http?: string;
  allowOrigin?: string[];
  authorizationServer?: string[];
  approvalPollMs?: string;
}

export function registerMcpCommand(program: Command): void {
  const mcp = withAgentOptions(
    program
      .command('mcp')
      .description('the agent’s MCP server: authorize purchases, await approvals, read authority (stdio or --http)'),
  )
    .option('--http <port>', 'serve Streamable HTTP at /mcp on 127.0.0.1:<port> instead of stdio (0: any free port)')
    .option('--allow-origin <origin...>', 'with --http: browser origins allowed besides the loopback ones')
    .option('--authorization-server <url...>', 'with --http: the authorization servers named in RFC 9728 metadata')
    .option('--approval-poll-ms <ms>', 'how often await_approval reads the approval (default 1000)')
    .action(async (flags: McpFlags) => {
      const session = await openAgentSession(flags);
      const poll =
        flags.approvalPollMs === undefined ? undefined : positiveInt(flags.approvalPollMs, '--approval-poll-ms');
      const catalogue = agentCatalogue(session, poll === undefined ? {} : { pollIntervalMs: poll });
      const newServer = () => buildMcpServer(AGENT_SERVER_INFO, catalogue);
      if (flags.http === undefined) {
        const server = newServer();
        await server.connect(new StdioServerTransport());
        await untilClosed(() => server.close(), server);
        return;
      }
      const http = await startLocalHttp({
        port: httpPort(flags.http),
        newServer,
        allowOrigins: flags.allowOrigin ?? [],
        authorizationServers: flags.authorizationServer ?? [],
      });
      process.stderr.write(`aar mcp listening on ${http.url}\n`);
      await untilClosed(() => http.close());
    });
  registerGuardCommand(mcp);
}

/** The flags naming the service and the agent, shared by `aar mcp` and `aar mcp guard`. */
export function withAgentOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'the running aar service, e.g. http://127.0.0.1:8080 (required)')
    .option('--public-url <url>', 'the URL the service signs requests against (its AAR_PUBLIC_URL), default --base-url')
    .option('--agent <id>', 'the agent entity id, `ns:entity:agent:<id>` or the plain id (required)')
    .option('--agent-key <file>', 'the agent’s Ed25519 private key, PKCS#8 PEM or JWK, mode 0600 (required)')
    .option('--principal <id>', 'the person or organisation the agent acts for (required)')
    .option('--instrument <id>', 'the card token id, `ns:card_token:<id>` or the plain id (required)');
}

export interface AgentFlags {
  baseUrl?: string;
  publicUrl?: string;
  agent?: string;
  agentKey?: string;
  principal?: string;
  instrument?: string;
}

/** The session the flags and AAR_MCP_TOKEN describe, its token checked against the service. */
export async function openAgentSession(flags: AgentFlags): Promise<AgentSession> {
  const session = openSession(flags);
  await checkToken(session);
  return session;
}

function openSession(flags: AgentFlags): AgentSession {
  const missing = (['baseUrl', 'agent', 'agentKey', 'principal', 'instrument'] as const).filter((f) => !flags[f]);
  if (missing.length > 0) {
    const names = missing.map((f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw new ConfigError(`missing ${names.join(', ')}`);
  }
  const token = process.env.AAR_MCP_TOKEN;
  if (!token) throw new ConfigError(`${MCP_TOKEN_ENV} must hold the API token (a runtime token) of the service`);
  let key;
  try {
    key = loadAgentKey(flags.agentKey!);
  } catch (error) {
    if (error instanceof AgentKeyError) throw new ConfigError(error.message);
    throw error;
  }
  for (const [name, value] of [
    ['--base-url', flags.baseUrl],
    ['--public-url', flags.publicUrl],
  ] as const) {
    if (value !== undefined && !/^https?:\/\//.test(value)) throw new ConfigError(`${name} must be an http(s) URL`);
  }
  return new AgentSession({
    baseUrl: flags.baseUrl!,
    ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
    token,
    key,
    identity: {
      agent: agentId(flags.agent!),
      principal: principalId(flags.principal!),
      instrument: instrumentId(flags.instrument!),
    },
  });
}

/** Fails at start, not at the first tool call, when the token is unknown or of a role that cannot authorize. */
async function checkToken(session: AgentSession): Promise<void> {
  let self;
  try {
    self = await session.client.getOwnToken();
  } catch (error) {
    throw new ConfigError(`cannot use ${MCP_TOKEN_ENV} with ${session.client.baseUrl}: ${(error as Error).message}`);
  }
  if (self.role !== 'runtime') {
    throw new ConfigError(`${MCP_TOKEN_ENV} is a ${self.role} token; aar mcp needs a runtime token`);
  }
}

export function httpPort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`\`${value}\` is not a port number (0-65535)`);
  return n;
}

function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 10 || n > 60_000) throw new ConfigError(`${name} must be 10-60000`);
  return n;
}

/** Resolves when the process is told to stop (SIGINT, SIGTERM) or the stdio peer goes away. */
export async function untilClosed(
  close: () => Promise<void>,
  server?: { onclose?: (() => void) | undefined },
): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (server) server.onclose = done;
    process.stdin.once('end', done);
  });
  await close();
}
