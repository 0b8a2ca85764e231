import { buildDecisionMap, canonicalBytes, decide } from '@aar/core';
import type { DecisionRequest, DecisionSnapshot } from '@aar/core';

/** Fixed ids: minting them (UUIDv7) is the server's work, not core's, and is left out of the measurement. */
const MAP_IDS = {
  decision_map_id: 'ns:decision_map:01963a60-0000-7000-8000-000000000001',
  policy_decision_id: 'ns:decision:01963a60-0000-7000-8000-000000000002',
  audit_ref: 'ns:audit:01963a60-0000-7000-8000-000000000003',
  evidence_refs: ['ns:evidence-pack:01963a60-0000-7000-8000-000000000004'],
  issued_at: '2026-04-15T10:00:00.012Z',
};

/**
 * Core's per-request work on the authorize path before signing: decide, the decision map, and the map's RFC 8785
 * bytes (what gets signed and hashed). Signing is asynchronous Ed25519 and is not part of this measurement.
 */
export function decideWithEvidence(request: DecisionRequest, snapshot: DecisionSnapshot, now: string): Uint8Array {
  const result = decide(request, snapshot, now);
  return canonicalBytes(buildDecisionMap({ ...MAP_IDS, request, snapshot, result }));
}
