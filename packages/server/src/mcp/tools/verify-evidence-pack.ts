/**
 * `verify_evidence_pack`: checks a signed evidence pack offline with core's verifier (signatures, audit inclusion,
 * checkpoint, and a replay of the decision by the same `decide` the service runs), trusting only the service's JWKS
 * fetched from the base URL this server was started with, never a key the pack itself names or carries. The pack is
 * given whole, or by id (fetched from the service; then it must be one of this agent's decisions).
 */
import { AarApiError } from '@aar/sdk';
import type { DecisionReader } from '../decision-reader.ts';
import { ToolFailure, type ToolContext, type ToolDefinition } from '../tool-kit.ts';

const MAX_PACK_BYTES = 512 * 1024;

export function verifyEvidencePackTool(reader: DecisionReader): ToolDefinition {
  return {
    name: 'verify_evidence_pack',
    title: 'Verify an evidence pack',
    description:
      'Verify a decision’s signed evidence pack offline against the service’s published keys: its signatures, ' +
      'its place in the audit log, and a replay of the decision. Give evidence_pack_id (from a decision’s ' +
      'evidence_refs) or the pack itself.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        evidence_pack_id: { type: 'string', pattern: '^ns:evidence-pack:[0-9a-f-]{36}$' },
        pack: { type: 'object', description: 'a whole evidence pack, as GET /v1/evidence-packs/{id} returns it' },
      },
      oneOf: [
        { type: 'object', required: ['evidence_pack_id'] },
        { type: 'object', required: ['pack'] },
      ],
    },
    outputSchema: {
      type: 'object',
      required: ['valid', 'checks', 'explanation'],
      properties: {
        valid: { type: 'boolean' },
        explanation: { type: 'string' },
        evidence_pack_id: { type: 'string' },
        policy_decision_id: { type: 'string' },
        key_id: { type: 'string' },
        checks: {
          type: 'array',
          items: {
            type: 'object',
            required: ['check', 'valid'],
            properties: { check: { type: 'string' }, valid: { type: 'boolean' }, failure: { type: 'string' } },
          },
        },
        replay: {
          type: 'object',
          properties: { decision: { type: 'string' }, reason: { type: 'string' }, matches: { type: 'boolean' } },
        },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(raw, ctx) {
      const args = raw as { evidence_pack_id?: string; pack?: Record<string, unknown> };
      const pack = args.pack ?? (await fetchOwnPack(reader, args.evidence_pack_id!, ctx));
      if (JSON.stringify(pack).length > MAX_PACK_BYTES) throw new ToolFailure('the pack is larger than 512 KiB');
      const result = await reader.verifyPack(pack, ctx);
      const checks = result.checks.map((c) => ({
        check: String(c.check),
        valid: c.valid,
        ...(c.failure ? { failure: String(c.failure) } : {}),
      }));
      const replay = result.replay_decision
        ? {
            decision: String(result.replay_decision.decision),
            reason: String(result.replay_decision.reason),
            matches: result.replay_decision.matches,
          }
        : undefined;
      const failed = checks.filter((c) => !c.valid).map((c) => `${c.check}${c.failure ? ` (${c.failure})` : ''}`);
      const explanation = result.valid
        ? 'The pack is authentic: every signature verifies with the service’s published keys, it is in the audit ' +
          'log, and replaying the decision gives the same answer.'
        : `The pack does NOT verify: ${failed.join(', ')}.`;
      const id = (pack as { evidence_pack_id?: unknown }).evidence_pack_id;
      const decisionId = (pack as { policy_decision_id?: unknown }).policy_decision_id;
      const structured: Record<string, unknown> = {
        valid: result.valid,
        explanation,
        ...(typeof id === 'string' ? { evidence_pack_id: id } : {}),
        ...(typeof decisionId === 'string' ? { policy_decision_id: decisionId } : {}),
        ...(result.key_id ? { key_id: result.key_id } : {}),
        checks,
        ...(replay ? { replay } : {}),
      };
      return { structured, text: explanation };
    },
  };
}

async function fetchOwnPack(reader: DecisionReader, id: string, ctx: ToolContext): Promise<unknown> {
  let pack: unknown;
  try {
    pack = await reader.evidencePack(id, ctx);
  } catch (error) {
    if (error instanceof AarApiError && error.status === 404) throw new ToolFailure(`no evidence pack \`${id}\``);
    throw error;
  }
  if (reader.agent !== undefined && actorOf(pack) !== reader.agent)
    throw new ToolFailure(`no evidence pack \`${id}\` of this agent`);
  return pack;
}

/** The agent the pack's recorded request names. */
function actorOf(pack: unknown): unknown {
  return (pack as { request?: { actor_entity_id?: unknown } } | null)?.request?.actor_entity_id;
}
