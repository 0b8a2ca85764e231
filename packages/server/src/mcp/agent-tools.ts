/**
 * The agent's tools, in the order `tools/list` gives them, and the words the server gives a host about them.
 * One RequestMemory for the process: a require_approval seen on one connection can be awaited on another.
 */
import type { AgentSession } from './agent-session.ts';
import { ToolCatalogue, type McpServerInfo } from './agent-server.ts';
import { RequestMemory } from './request-memory.ts';
import { authorizePurchaseTool } from './tools/authorize-purchase.ts';
import { awaitApprovalTool, sessionRetry, type AwaitApprovalOptions } from './tools/await-approval.ts';
import { explainDecisionTool } from './tools/explain-decision.ts';
import { myAuthorityTool } from './tools/my-authority.ts';
import { verifyEvidencePackTool } from './tools/verify-evidence-pack.ts';

export function agentCatalogue(session: AgentSession, options: AwaitApprovalOptions = {}): ToolCatalogue {
  const memory = new RequestMemory();
  return new ToolCatalogue([
    authorizePurchaseTool(session, memory),
    awaitApprovalTool(session, sessionRetry(session, memory), options),
    myAuthorityTool(session),
    explainDecisionTool(session),
    verifyEvidencePackTool(session),
  ]);
}

export const AGENT_SERVER_INFO: McpServerInfo = {
  name: 'aar-mcp',
  title: 'Agent Authority Runtime',
  instructions:
    'Before any purchase step, call authorize_purchase and follow its decision: allow_with_constraints means go ' +
    'ahead within the obligations, require_approval means call await_approval, deny means stop and tell the person. ' +
    'my_authority shows the limits; explain_decision explains any decision; verify_evidence_pack checks its proof. ' +
    'Never ask for or pass a card number: the card is a token this server already holds.',
};
