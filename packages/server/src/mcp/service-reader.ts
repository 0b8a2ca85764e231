/**
 * The service's own API, as the tools of `/mcp` inside `aar serve` reach it: every read and every authorize goes
 * through the app's HTTP routes (Fastify `inject`, in process), carrying the `Authorization` header of the MCP
 * request that carried the tool call. So the MCP door adds no power: authentication, roles, rate limits, idempotency,
 * signature checks and audit are exactly those of the REST API for that same credential. The credential is used and
 * dropped, never stored past the call, logged or returned.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { verifyEvidencePack, type EvidenceVerificationResult, type Jwks } from '@aar/core';
import { AarApiError } from '@aar/sdk';
import type { AuthorizeAnswer } from './agent-session.ts';
import type { ApprovalRecord, DecisionReader } from './decision-reader.ts';
import { ToolFailure, type ToolContext } from './tool-kit.ts';

export const AUTHORIZE_PATH = '/v1/runtime/authorize';

export interface SignedAuthorize {
  /** the exact body bytes the agent signed (UTF-8 JSON) */
  body: string;
  headers: { 'signature-input': string; signature: string; 'content-digest': string };
}

export class ServiceReader implements DecisionReader {
  readonly agent = undefined;
  readonly #app: FastifyInstance;

  constructor(app: FastifyInstance) {
    this.#app = app;
  }

  decision(id: string, ctx: ToolContext): Promise<Record<string, unknown>> {
    return this.#get(`/v1/decisions/${encodeURIComponent(id)}`, ctx);
  }

  decisionMap(id: string, ctx: ToolContext): Promise<Record<string, unknown>> {
    return this.#get(`/v1/decision-maps/${encodeURIComponent(id)}`, ctx);
  }

  approval(id: string, ctx: ToolContext): Promise<ApprovalRecord> {
    return this.#get(`/v1/approvals/${encodeURIComponent(id)}`, ctx) as unknown as Promise<ApprovalRecord>;
  }

  evidencePack(id: string, ctx: ToolContext): Promise<unknown> {
    return this.#get(`/v1/evidence-packs/${encodeURIComponent(id)}`, ctx);
  }

  /** Against the JWKS this service publishes (the public route), never a key the pack names. */
  async verifyPack(pack: unknown, ctx: ToolContext): Promise<EvidenceVerificationResult> {
    const jwks = (await this.#send({ method: 'GET', url: '/.well-known/jwks.json' }, ctx, false)) as Jwks;
    return verifyEvidencePack(pack, jwks);
  }

  /** POST /v1/runtime/authorize with the agent's own signature over the exact body it signed. */
  authorize(signed: SignedAuthorize, ctx: ToolContext): Promise<AuthorizeAnswer> {
    return this.#send(
      {
        method: 'POST',
        url: AUTHORIZE_PATH,
        headers: { 'content-type': 'application/json', ...signed.headers },
        payload: signed.body,
      },
      ctx,
      true,
    ) as Promise<AuthorizeAnswer>;
  }

  #get(url: string, ctx: ToolContext): Promise<Record<string, unknown>> {
    return this.#send({ method: 'GET', url }, ctx, true) as Promise<Record<string, unknown>>;
  }

  async #send(options: InjectOptions, ctx: ToolContext, authenticated: boolean): Promise<unknown> {
    if (authenticated && !ctx.authorization) throw new ToolFailure('this call needs the MCP request’s bearer token');
    const res = await this.#app.inject({
      ...options,
      headers: { ...(options.headers ?? {}), ...(authenticated ? { authorization: ctx.authorization! } : {}) },
    });
    const body: unknown = res.body ? JSON.parse(res.body) : undefined;
    if (res.statusCode >= 300) {
      throw new AarApiError({
        method: options.method ?? 'GET',
        path: String(options.url).split('?')[0]!,
        status: res.statusCode,
        problem: (body ?? {}) as Record<string, unknown>,
        requestId: typeof res.headers['x-request-id'] === 'string' ? res.headers['x-request-id'] : undefined,
        attempts: 1,
      });
    }
    return body;
  }
}
