/**
 * `await_approval`: after a `require_approval`, waits (bounded) for the person's answer to the approval the service
 * pushed to them, then, once approved, retries the identical request naming the decision (CONTRACT section 6), signed
 * afresh, and answers with that final decision. Only this agent's decisions: another agent's id is "not found",
 * exactly as if it did not exist. Polling reads `GET /v1/approvals/{id}`; nothing is decided here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentSession, AuthorizeAnswer, AuthorizeBody } from '../agent-session.ts';
import type { ApprovalRecord, DecisionReader } from '../decision-reader.ts';
import type { RequestMemory } from '../request-memory.ts';
import { ToolFailure, type ToolDefinition } from '../tool-kit.ts';
import { decisionSchema, decisionText, summarizeDecision } from './decision-shape.ts';
import { ownDecision } from './own-decision.ts';

/** Authorizes the approved request again, naming the decision; absent where the caller must sign it itself. */
export type ApprovedRetry = (policyDecisionId: string, approval: ApprovalRecord) => Promise<AuthorizeAnswer>;

export const MAX_WAIT_SECONDS = 300;
const STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;

export interface AwaitApprovalOptions {
  /** between two reads of the approval, default 1000 ms */
  pollIntervalMs?: number;
}

export function awaitApprovalTool(
  reader: DecisionReader,
  retry: ApprovedRetry | undefined,
  options: AwaitApprovalOptions = {},
): ToolDefinition {
  const pollMs = options.pollIntervalMs ?? 1000;
  return {
    name: 'await_approval',
    title: 'Wait for the person’s approval',
    description:
      'After authorize_purchase answered require_approval, wait up to wait_seconds for the person to approve or ' +
      'reject in their banking app. ' +
      (retry
        ? 'When they approve, the same purchase is authorized again as approved and that final decision is returned. '
        : 'When they approve, sign the identical request again with this policy_decision_id and authorize it. ') +
      'With wait_seconds 0 it only reads the approval’s state.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['policy_decision_id'],
      properties: {
        policy_decision_id: { type: 'string', pattern: '^ns:decision:[0-9a-f-]{36}$' },
        wait_seconds: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 60 },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['approval_id', 'status', 'waited_seconds', 'explanation'],
      properties: {
        approval_id: { type: 'string' },
        status: { type: 'string', enum: [...STATUSES] },
        waited_seconds: { type: 'number', minimum: 0 },
        explanation: { type: 'string' },
        expires_at: { type: 'string' },
        final_decision: { ...decisionSchema, description: 'the retried purchase, once approved' },
      },
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(raw, ctx) {
      const args = raw as { policy_decision_id: string; wait_seconds?: number };
      const record = await ownDecision(reader, args.policy_decision_id, ctx);
      const approvalId = record.approval_id;
      if (typeof approvalId !== 'string') {
        throw new ToolFailure(
          `${args.policy_decision_id} (${String(record.decision)}, ${String(record.reason)}) asked for no approval`,
        );
      }
      const started = Date.now();
      const deadline = started + (args.wait_seconds ?? 60) * 1000;
      let approval = await reader.approval(approvalId, ctx);
      while (approval.status === 'pending' && Date.now() + pollMs <= deadline) {
        await ctx.progress((Date.now() - started) / 1000, args.wait_seconds ?? 60, 'waiting for the person');
        await sleep(pollMs, undefined, { signal: ctx.signal });
        approval = await reader.approval(approvalId, ctx);
      }
      const waited = Math.round((Date.now() - started) / 100) / 10;
      const base = {
        approval_id: approvalId,
        status: approval.status,
        waited_seconds: waited,
        expires_at: approval.expires_at,
      };
      if (approval.status !== 'approved' || !retry) {
        const explanation = statusWords(approval.status);
        return { structured: { ...base, explanation }, text: `Approval ${approvalId}: ${explanation}` };
      }
      const final = summarizeDecision(await retry(args.policy_decision_id, approval));
      const explanation = 'The person approved; the purchase was authorized again as approved.';
      return {
        structured: { ...base, explanation, final_decision: final },
        text: `Approval ${approvalId}: ${explanation}\n${decisionText(final)}`,
      };
    },
  };
}

function statusWords(status: string): string {
  switch (status) {
    case 'approved':
      return 'the person approved: sign the identical request again with this policy_decision_id and authorize it.';
    case 'pending':
      return 'still waiting for the person; call await_approval again later.';
    case 'rejected':
      return 'the person rejected the purchase. Do not proceed.';
    case 'expired':
      return 'the approval request expired unanswered. Do not proceed; ask again with authorize_purchase.';
    default:
      return 'the approval was already used by an earlier retry.';
  }
}

/** The retry of `aar mcp`: the body it sent (RequestMemory), else the request the approval names, signed afresh. */
export function sessionRetry(session: AgentSession, memory: RequestMemory): ApprovedRetry {
  return (policyDecisionId, approval) =>
    session.authorize({
      ...(memory.recall(policyDecisionId) ?? fromApproval(session, approval.request)),
      policy_decision_id: policyDecisionId,
    } as AuthorizeBody);
}

/** The request the approval names (`subject`, merchant, amount, instrument, basket when shown): the retry repeats it. */
function fromApproval(session: AgentSession, request: Record<string, unknown>): AuthorizeBody {
  const amount = request.amount as { amount?: number; currency?: string } | undefined;
  const resource: Record<string, unknown> = {};
  if (typeof request.merchant_id === 'string') resource.merchant_id = request.merchant_id;
  if (amount?.amount !== undefined) resource.amount = amount.amount;
  if (amount?.currency !== undefined) resource.currency = amount.currency;
  return {
    actor_entity_id: session.identity.agent,
    principal_entity_id: session.identity.principal,
    subject: String(request.subject),
    ...(Object.keys(resource).length > 0 ? { resource } : {}),
    scope: {
      instrument: typeof request.instrument_id === 'string' ? request.instrument_id : session.identity.instrument,
    },
    ...(request.basket && typeof request.basket === 'object' ? { basket: request.basket } : {}),
  } as AuthorizeBody;
}
