/**
 * The agent's connection to a running service: the SDK's HTTP client with the MCP token (`AAR_MCP_TOKEN`, a runtime
 * credential) and the SDK's RFC 9421 signer holding the agent's key. Every authorize is signed as the agent over the
 * exact bytes sent, for the service's public URL: an MCP call is never weaker proof than a signed authorize, because
 * it is one. Nothing here chooses a decision: the service decides, records and signs; this only asks and reads.
 */
import {
  AarClient,
  createRequestSigner,
  verifyEvidencePack,
  type Ed25519PrivateJwk,
  type RequestSigner,
} from '@aar/sdk';
import type { EvidenceVerificationResult } from '@aar/core';
import type { AgentIdentity } from './agent-identity.ts';
import type { ApprovalRecord, DecisionReader } from './decision-reader.ts';

export interface AgentSessionOptions {
  baseUrl: string;
  /** the URL the service signs `@target-uri` against (its AAR_PUBLIC_URL), default baseUrl */
  publicUrl?: string;
  token: string;
  identity: AgentIdentity;
  key: Ed25519PrivateJwk;
  /** one attempt's time limit, default 15 s */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export type AuthorizeBody = Parameters<AarClient['authorize']>[0];
export type AuthorizeAnswer = Awaited<ReturnType<AarClient['authorize']>>;

export class AgentSession implements DecisionReader {
  readonly identity: AgentIdentity;
  readonly client: AarClient;
  readonly #signer: RequestSigner;

  constructor(options: AgentSessionOptions) {
    this.identity = options.identity;
    this.client = new AarClient({
      baseUrl: options.baseUrl,
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      token: options.token,
      timeoutMs: options.timeoutMs ?? 15_000,
      userAgent: 'aar-mcp/1.0.0',
      retry: { maxAttempts: 2 },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.#signer = createRequestSigner({ keyId: options.identity.agent, privateJwk: options.key });
  }

  /** `POST /v1/runtime/authorize`, signed as the agent. */
  authorize(body: AuthorizeBody): Promise<AuthorizeAnswer> {
    return this.client.authorize(body, { signer: this.#signer });
  }

  get agent(): string {
    return this.identity.agent;
  }

  decision(id: string): Promise<Record<string, unknown>> {
    return this.client.getDecision(id) as Promise<Record<string, unknown>>;
  }

  decisionMap(id: string): Promise<Record<string, unknown>> {
    return this.client.getDecisionMap(id) as Promise<Record<string, unknown>>;
  }

  approval(id: string): Promise<ApprovalRecord> {
    return this.client.getApproval(id) as Promise<ApprovalRecord>;
  }

  evidencePack(id: string): Promise<unknown> {
    return this.client.getEvidencePack(id);
  }

  /** Offline verification against the service's JWKS (fetched from the base URL), never a key the pack names. */
  verifyPack(pack: unknown): Promise<EvidenceVerificationResult> {
    return verifyEvidencePack(pack, this.client.jwksSource());
  }
}
