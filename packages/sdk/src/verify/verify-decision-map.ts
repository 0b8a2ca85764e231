/**
 * A signed decision map (`ns.decision_map.v1`, CONTRACT sections 4 and 11), offline: its Ed25519 signature by a
 * trusted key, its shape (the seven nodes in the spec's order), and, when the caller passes what it was answered
 * with (the authorize response), that the map states the same decision, reason and decision id. The same checks as
 * the Python and Go SDKs' verify_decision_map, over vectors/sdk.
 */
import { DECISION_MAP_NODE_TYPES, DECISION_MAP_SCHEMA, type VerifyDocumentFailure } from '@aar/core';
import type { TrustedKeySource } from './trusted-key-source.ts';
import { verifyDocument } from './verify-document.ts';

export interface DecisionMapExpectation {
  decision?: string;
  reason?: string;
  policy_decision_id?: string;
}

export interface VerifyDecisionMapResult {
  valid: boolean;
  failure?: VerifyDocumentFailure | 'malformed_map' | 'decision_mismatch';
  key_id?: string;
}

export async function verifyDecisionMap(
  map: unknown,
  trusted: TrustedKeySource,
  options: { expected?: DecisionMapExpectation } = {},
): Promise<VerifyDecisionMapResult> {
  const signature = await verifyDocument(map, trusted);
  const keyId = signature.key_id === undefined ? {} : { key_id: signature.key_id };
  if (!signature.valid) return { valid: false, failure: signature.failure ?? 'signature_mismatch', ...keyId };
  const doc = map as Record<string, unknown>;
  const nodes = doc.nodes;
  const shaped =
    doc.schema_version === DECISION_MAP_SCHEMA &&
    Array.isArray(nodes) &&
    nodes.length === DECISION_MAP_NODE_TYPES.length &&
    nodes.every(
      (node: unknown, i) =>
        typeof node === 'object' && node !== null && (node as { type?: unknown }).type === DECISION_MAP_NODE_TYPES[i],
    );
  if (!shaped) return { valid: false, failure: 'malformed_map', ...keyId };
  const expected = options.expected ?? {};
  for (const name of ['decision', 'reason', 'policy_decision_id'] as const) {
    if (expected[name] !== undefined && doc[name] !== expected[name]) {
      return { valid: false, failure: 'decision_mismatch', ...keyId };
    }
  }
  return { valid: true, ...keyId };
}
