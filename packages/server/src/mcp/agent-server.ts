/**
 * The MCP server of one agent (`aar mcp`), on the SDK's low-level `Server`: it speaks the protocol revisions the SDK
 * negotiates (2025-11-25, the current one, and 2025-06-18 before it, among others) and offers tools only. `tools/list`
 * gives every tool with its input and output JSON Schemas; `tools/call` of an unknown tool is a JSON-RPC error
 * (-32602, a protocol error: there is nothing the model could correct in the call); arguments outside the schema and
 * failures of the service are tool execution errors (`isError`), and nothing is recorded as allowed for them.
 * One Server serves one connection (stdio, or one Streamable HTTP session): build a new one per session.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_VERSION } from '../http/server-version.ts';
import { compileTool, runTool, type CompiledTool, type ToolDefinition } from './tool-kit.ts';

export interface McpServerInfo {
  name: string;
  title: string;
  instructions: string;
}

export class ToolCatalogue {
  readonly #tools = new Map<string, CompiledTool>();

  constructor(definitions: readonly ToolDefinition[]) {
    for (const definition of definitions) {
      if (this.#tools.has(definition.name)) throw new Error(`two tools are named \`${definition.name}\``);
      this.#tools.set(definition.name, compileTool(definition));
    }
  }

  get names(): string[] {
    return [...this.#tools.keys()];
  }

  get(name: string): CompiledTool | undefined {
    return this.#tools.get(name);
  }

  list() {
    return [...this.#tools.values()].map(({ definition: d }) => ({
      name: d.name,
      title: d.title,
      description: d.description,
      inputSchema: d.inputSchema as { type: 'object'; [k: string]: unknown },
      outputSchema: d.outputSchema as { type: 'object'; [k: string]: unknown },
      ...(d.annotations ? { annotations: d.annotations } : {}),
    }));
  }
}

export function buildMcpServer(info: McpServerInfo, catalogue: ToolCatalogue): Server {
  const server = new Server(
    { name: info.name, title: info.title, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false }, logging: {} }, instructions: info.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalogue.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = catalogue.get(request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool \`${request.params.name.slice(0, 64)}\`; this server's tools are: ${catalogue.names.join(', ')}`,
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const authorization = extra.requestInfo?.headers.authorization;
    const result = await runTool(tool, request.params.arguments, {
      signal: extra.signal,
      authorization: Array.isArray(authorization) ? authorization[0] : authorization,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, ...(total === undefined ? {} : { total }), message },
        });
      },
    });
    await logDecision(server, result.structuredContent, extra.sessionId);
    return result;
  });
  return server;
}

/**
 * A decision, as an MCP log message (`notifications/message`, at the level the client set with `logging/setLevel`):
 * info for an allow, warning for anything else. Ids, decision and reason only.
 */
async function logDecision(server: Server, structured: Record<string, unknown> | undefined, sessionId?: string) {
  const decision = (structured?.final_decision ?? structured) as Record<string, unknown> | undefined;
  if (typeof decision?.decision !== 'string' || typeof decision.policy_decision_id !== 'string') return;
  await server
    .sendLoggingMessage(
      {
        level: decision.decision === 'allow_with_constraints' ? 'info' : 'warning',
        logger: 'aar',
        data: { policy_decision_id: decision.policy_decision_id, decision: decision.decision, reason: decision.reason },
      },
      sessionId,
    )
    .catch(() => undefined);
}
