/**
 * The guard (`aar mcp guard`): an MCP server in front of another MCP server. `tools/list` gives the guarded server's
 * tools that the mapping names (others are hidden and uncallable); each `tools/call` is first authorized as the
 * agent (signed, decided, recorded by the service: one decision per call), and only an allowed call is forwarded,
 * with its arguments untouched. A `deny` never reaches the tool; a `require_approval` returns the approval to the
 * agent without calling the tool, and the same call made again names that decision, so once the person approves it
 * goes through (and until then each attempt is recorded as `approval_pending`). Answers of the guard itself carry the
 * decision in `_meta["aar/decision"]`; a refused call is a tool execution error (`isError`).
 */
import { canonicalJson, findPan, maskLongDigitRuns } from '@aar/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SERVER_VERSION } from '../../http/server-version.ts';
import type { AgentSession, AuthorizeAnswer, AuthorizeBody } from '../agent-session.ts';
import { nextStep, reasonInWords } from '../plain-words.ts';
import { failureText } from '../tool-kit.ts';
import { resolveSource, readPointer, type GuardMapping, type ToolMapping } from './guard-mapping.ts';

const MAX_REMEMBERED = 256;

export class GuardError extends Error {
  override readonly name = 'GuardError';
}

/** The decisions waiting for approval, by tool and canonical arguments: one per guard process, shared by sessions. */
export type PendingApprovals = Map<string, string>;

export function buildGuardServer(
  session: AgentSession,
  mapping: GuardMapping,
  downstream: Client,
  pending: PendingApprovals = new Map(),
): Server {
  const server = new Server(
    { name: 'aar-mcp-guard', title: 'Agent Authority Runtime guard', version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Every tool call is authorized for the person this agent acts for before it runs. A call refused with ' +
        'require_approval runs once the person approves: make the same call again then. A deny is final.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { tools } = await downstream.listTools();
    return { tools: tools.filter((t: Tool) => Object.hasOwn(mapping.tools, t.name)) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const rule = Object.hasOwn(mapping.tools, name) ? mapping.tools[name] : undefined;
    if (!rule) throw new McpError(ErrorCode.InvalidParams, `unknown tool \`${name.slice(0, 64)}\``);
    const pan = findPan(args);
    if (pan !== undefined) {
      return refused(`\`${maskLongDigitRuns(pan)}\` holds a card number: the call is refused and was not forwarded.`);
    }
    let body: AuthorizeBody;
    try {
      body = purchaseOf(session, name, rule, args);
    } catch (error) {
      return refused(`${(error as Error).message}; the call was not forwarded.`);
    }
    const key = `${name}\u0000${canonicalJson(args)}`;
    const earlier = pending.get(key);
    let answer: AuthorizeAnswer;
    try {
      answer = await session.authorize(earlier ? { ...body, policy_decision_id: earlier } : body);
    } catch (error) {
      return refused(`${failureText(name, error)} The call was not forwarded.`);
    }
    const decision = {
      policy_decision_id: answer.policy_decision_id,
      decision: answer.decision,
      reason: answer.reason,
      explanation: reasonInWords(answer.reason),
      ...(answer.approval ? { approval: answer.approval } : {}),
    };
    if (answer.decision === 'require_approval') {
      pending.delete(key);
      pending.set(key, earlier ?? answer.policy_decision_id);
      while (pending.size > MAX_REMEMBERED) pending.delete(pending.keys().next().value as string);
      return refused(
        `Not run yet: ${decision.explanation} ${nextStepForGuard(answer)} (decision ${answer.policy_decision_id})`,
        decision,
      );
    }
    pending.delete(key);
    if (answer.decision !== 'allow_with_constraints') {
      return refused(
        `Refused: ${decision.explanation} ${nextStep(answer.decision, answer.reason)} (decision ${answer.policy_decision_id})`,
        decision,
      );
    }
    const result = (await downstream.callTool({ name, arguments: args })) as CallToolResult;
    return { ...result, _meta: { ...(result._meta ?? {}), 'aar/decision': decision } };
  });
  return server;
}

function nextStepForGuard(answer: AuthorizeAnswer): string {
  const approval = answer.approval;
  return approval
    ? `The person was asked (approval ${approval.approval_id}, until ${approval.expires_at}); make the same call again once they approve.`
    : 'Make the same call again once the person approves.';
}

function refused(text: string, decision?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    ...(decision ? { _meta: { 'aar/decision': decision } } : {}),
  };
}

/** The authorize body the mapping makes of a call: subject = the capability, resource from the arguments. */
export function purchaseOf(session: AgentSession, tool: string, rule: ToolMapping, args: unknown): AuthorizeBody {
  const resource: Record<string, unknown> = {};
  for (const field of ['merchant_id', 'amount', 'currency'] as const) {
    const source = rule.resource?.[field];
    if (!source) continue;
    const value = resolveSource(source, args);
    if (value === undefined) {
      throw new GuardError(`argument \`${'argument' in source ? source.argument : field}\` (${field}) is missing`);
    }
    const wanted = field === 'amount' ? 'number' : 'string';
    if (typeof value !== wanted) throw new GuardError(`${field} must be a ${wanted}`);
    resource[field] = value;
  }
  const basket = rule.basket ? readPointer(args, rule.basket.argument) : undefined;
  if (rule.basket && !Array.isArray(basket))
    throw new GuardError(`argument \`${rule.basket.argument}\` must be a list`);
  return {
    actor_entity_id: session.identity.agent,
    principal_entity_id: session.identity.principal,
    subject: rule.capability,
    ...(Object.keys(resource).length > 0 ? { resource } : {}),
    scope: { instrument: session.identity.instrument },
    ...(basket ? { basket: { items: basket as unknown[] } } : {}),
    context: { mcp_guard: { tool } },
  } as AuthorizeBody;
}
