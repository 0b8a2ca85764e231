/**
 * The evidence pack's `agent_metadata` check (issue 30, aar-decide/1.5.0): a decision made while the agent had
 * attested metadata proves, offline, what the agent signed.
 * - the snapshot's `agent_metadata` (the attested fields, the digest, the agent key it verified against) and the
 *   pack's `agent_metadata_attestation` (the signed document) come together, else `agent_metadata_missing`;
 * - the document's digest (agentMetadataDigest) is the snapshot's, and the decision map's actor node names the same
 *   fields and `attestation_digest`, else `agent_metadata_digest_mismatch`;
 * - the document names the snapshot's actor and states the snapshot's fields, else `agent_metadata_mismatch`;
 * - its signature verifies against the snapshot's `public_key_jwk` (never a key the document names), else
 *   `agent_metadata_signature_invalid`.
 * The snapshot is part of the decision record the audit entry commits to, and the map is signed by the service, so
 * neither the key nor the digest can be swapped without another check failing.
 * Recorded only when the snapshot, the pack or the map's actor node carries agent metadata (older packs: never).
 * The same rules as the Python (aar_sdk/agent_metadata.py) and Go (agent_metadata.go) verifiers.
 * Attacker assumption: the pack is anything at all; nothing throws out of here.
 */
import {
  AGENT_METADATA_FIELDS,
  agentMetadataDigest,
  verifyAgentMetadataAttestation,
} from '../agent-metadata/attestation.ts';
import { isRecord } from '../decide/guards.ts';
import type { Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';

export type AgentMetadataOutcome =
  | true
  | 'agent_metadata_missing'
  | 'agent_metadata_digest_mismatch'
  | 'agent_metadata_mismatch'
  | 'agent_metadata_signature_invalid';

/** undefined when nothing in the pack carries agent metadata (the check is then not recorded). */
export async function checkPackAgentMetadata(pack: unknown): Promise<AgentMetadataOutcome | undefined> {
  if (!isRecord(pack)) return undefined;
  const snapshot = isRecord(pack.snapshot) ? pack.snapshot : {};
  const attested: unknown = Object.hasOwn(snapshot, 'agent_metadata') ? snapshot.agent_metadata : undefined;
  const doc: unknown = Object.hasOwn(pack, 'agent_metadata_attestation') ? pack.agent_metadata_attestation : undefined;
  const node = actorNodeOf(pack.decision_map);
  const nodeBinds =
    isRecord(node) && (Object.hasOwn(node, 'agent_metadata') || Object.hasOwn(node, 'attestation_digest'));
  if ((attested === undefined || attested === null) && doc === undefined && !nodeBinds) return undefined;
  if (!isRecord(attested) || !isRecord(doc)) return 'agent_metadata_missing';
  let digest: string;
  try {
    digest = agentMetadataDigest(doc);
  } catch {
    return 'agent_metadata_digest_mismatch';
  }
  if (digest !== attested.digest) return 'agent_metadata_digest_mismatch';
  if (!isRecord(node) || node.attestation_digest !== digest || !isRecord(node.agent_metadata)) {
    return 'agent_metadata_digest_mismatch';
  }
  const shown = node.agent_metadata;
  for (const field of AGENT_METADATA_FIELDS) {
    if (typeof attested[field] !== 'string') return 'agent_metadata_mismatch';
    if (doc[field] !== attested[field] || shown[field] !== attested[field]) return 'agent_metadata_mismatch';
  }
  const actor = isRecord(snapshot.actor) ? snapshot.actor.entity_id : undefined;
  if (typeof actor !== 'string' || doc.agent_entity_id !== actor) return 'agent_metadata_mismatch';
  const key = isRecord(attested.public_key_jwk) ? (attested.public_key_jwk as unknown as Ed25519PublicJwk) : undefined;
  const verified = await verifyAgentMetadataAttestation(doc, actor, key);
  return verified.valid || 'agent_metadata_signature_invalid';
}

function actorNodeOf(map: unknown): unknown {
  const nodes: unknown = isRecord(map) ? map.nodes : undefined;
  return Array.isArray(nodes) ? nodes.find((n) => isRecord(n) && n.type === 'actor') : undefined;
}
