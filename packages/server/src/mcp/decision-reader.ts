/**
 * What the read-side tools (explain_decision, verify_evidence_pack, await_approval) need from the service: a
 * recorded decision, its signed map, an approval, an evidence pack, and an offline verification of a pack against
 * the service's JWKS. `aar mcp` reads over HTTP with its token (AgentSession); `/mcp` inside `aar serve` reads with
 * the caller's own credential through the API's routes (routes/mcp.ts). `agent` narrows what may be shown to one
 * agent's records: `aar mcp` acts for one agent, so another agent's records are "not found" there.
 */
import type { EvidenceVerificationResult } from '@aar/core';
import type { ToolContext } from './tool-kit.ts';

export interface ApprovalRecord {
  approval_id: string;
  status: string;
  expires_at: string;
  request: Record<string, unknown>;
}

export interface DecisionReader {
  readonly agent?: string | undefined;
  decision(id: string, ctx: ToolContext): Promise<Record<string, unknown>>;
  decisionMap(id: string, ctx: ToolContext): Promise<Record<string, unknown>>;
  approval(id: string, ctx: ToolContext): Promise<ApprovalRecord>;
  evidencePack(id: string, ctx: ToolContext): Promise<unknown>;
  verifyPack(pack: unknown, ctx: ToolContext): Promise<EvidenceVerificationResult>;
}
