/**
 * `aar mcp guard --mapping <file> [agent flags] -- <command of another MCP server>`: starts that server (stdio) as a
 * child and serves, on this process's stdio, the guard in front of it (mcp/guard/guard-server.ts). The child gets
 * this process's environment without AAR_MCP_TOKEN: the guarded server never holds the service's token. The mapping
 * is checked before the child starts; a mapping naming a capability the service does not know is refused (exit 2).
 */
import type { Command } from 'commander';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError } from '../config.ts';
import { GuardMappingError, loadGuardMapping } from '../mcp/guard/guard-mapping.ts';
import { buildGuardServer, type PendingApprovals } from '../mcp/guard/guard-server.ts';
import { startLocalHttp } from '../mcp/local-http.ts';
import { SERVER_VERSION } from '../http/server-version.ts';
import {
  MCP_TOKEN_ENV,
  httpPort,
  openAgentSession,
  untilClosed,
  withAgentOptions,
  type AgentFlags,
} from './mcp-command.ts';

interface GuardFlags extends AgentFlags {
  mapping: string;
  guardHttp?: string;
  allowOrigin?: string[];
}

export function registerGuardCommand(mcp: Command): void {
  withAgentOptions(
    mcp
      .command('guard')
      .description('sit in front of another MCP server (stdio) and authorize each tools/call before forwarding it'),
  )
    .requiredOption(
      '--mapping <file>',
      'JSON: for each tool, its capability and where merchant, amount, currency come from',
    )
    .option('--guard-http <port>', 'serve the guard as Streamable HTTP at /mcp on 127.0.0.1:<port> instead of stdio')
    .option('--allow-origin <origin...>', 'with --guard-http: browser origins allowed besides the loopback ones')
    .argument('<command...>', 'the guarded MCP server, after `--`')
    .action(async (command: string[], _own: GuardFlags, self: Command) => {
      // the parent `aar mcp` declares the same agent flags and, by commander's default, reads them wherever they
      // appear: the guard's flags are its own merged with its parent's
      const flags = self.optsWithGlobals<GuardFlags>();
      const session = await openAgentSession(flags);
      const catalogue = await session.client.listCapabilities();
      const known = new Set(catalogue.items.map((c: { capability_id: string }) => c.capability_id));
      let mapping;
      try {
        mapping = loadGuardMapping(flags.mapping, known);
      } catch (error) {
        if (error instanceof GuardMappingError) throw new ConfigError(error.message);
        throw error;
      }
      const env = Object.fromEntries(
        Object.entries(process.env).filter((e): e is [string, string] => e[0] !== MCP_TOKEN_ENV && e[1] !== undefined),
      );
      const downstream = new Client({ name: 'aar-mcp-guard', version: SERVER_VERSION });
      await downstream.connect(
        new StdioClientTransport({ command: command[0]!, args: command.slice(1), env, stderr: 'inherit' }),
      );
      const pending: PendingApprovals = new Map();
      if (flags.guardHttp !== undefined) {
        const http = await startLocalHttp({
          port: httpPort(flags.guardHttp),
          newServer: () => buildGuardServer(session, mapping, downstream, pending),
          allowOrigins: flags.allowOrigin ?? [],
        });
        process.stderr.write(`aar mcp guard listening on ${http.url}\n`);
        await untilClosed(async () => {
          await http.close();
          await downstream.close();
        });
        return;
      }
      const server = buildGuardServer(session, mapping, downstream, pending);
      await server.connect(new StdioServerTransport());
      await untilClosed(async () => {
        await server.close();
        await downstream.close();
      }, server);
    });
}
